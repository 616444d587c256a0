/**
 * What a command printed, within a budget the model can afford. The start of a command's output
 * usually says what ran and the end says how it ended (the failing test, the summary), so the
 * cap keeps the first and the last half and says how much it left out between them. Stdout and
 * stderr go through one cap, in the order they arrived, as a person at a terminal reads them.
 *
 * It holds at most maxChars plus the chunk being pushed: a command that prints forever (`yes`)
 * costs a bounded amount of memory, however long it runs.
 */
export class OutputCap {
  private head = "";
  private tail = "";
  private elidedChars = 0;
  private readonly headMax: number;
  private readonly tailMax: number;

  constructor(maxChars: number) {
    this.headMax = Math.floor(maxChars / 2);
    this.tailMax = maxChars - this.headMax;
  }

  push(chunk: string): void {
    // The head fills first and then never changes.
    const room = this.headMax - this.head.length;
    const rest = room > 0 ? chunk.slice(room) : chunk;
    if (room > 0) this.head += chunk.slice(0, room);
    if (rest === "") return;
    // The tail slides: what falls off its front is counted, not kept.
    const tail = this.tail + rest;
    const over = Math.max(0, tail.length - this.tailMax);
    this.tail = over > 0 ? tail.slice(over) : tail;
    this.elidedChars += over;
  }

  /** How many characters were left out: 0 when the whole output fit. */
  get elided(): number {
    return this.elidedChars;
  }

  /** The model reads this marker: it must say that something is missing, and how much. */
  text(): string {
    if (this.elidedChars === 0) return this.head + this.tail;
    return `${this.head}\n[... ${this.elidedChars} characters elided ...]\n${this.tail}`;
  }
}
