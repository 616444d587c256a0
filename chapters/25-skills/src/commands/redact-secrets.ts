/**
 * Takes the API key out of what a command printed and what any tool returns, before the model,
 * the ledger or the terminal sees it. child-env.ts keeps the key out of a command's environment,
 * but a command can still read it where the user keeps it: `cat .env`. Only exact copies are
 * found. A command that encodes the key (base64 at any offset, hex, reversed) gets past any
 * pattern, so this stops the accident, not a hostile command: chapter 23's sandbox is for that.
 */
export const REDACTED = "[redacted: OPENAI_API_KEY]";

/**
 * Local model servers take placeholder keys ("local", "EMPTY"); hiding those would garble
 * "localhost" in every output, and they protect nothing. Real keys are far longer.
 */
export const MIN_SECRET_LENGTH = 8;

export function redactSecrets(text: string, secrets: readonly string[]): string {
  // The longest first: a secret that contains another is replaced whole.
  const known = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  return [...known]
    .sort((a, b) => b.length - a.length)
    .reduce((t, s) => t.replaceAll(s, REDACTED), text);
}

/**
 * redactSecrets for output that arrives in chunks, applied before OutputCap so the cap's cut can
 * never split a key into halves that no longer match. A key can also arrive split across two
 * chunks, so the last (longest key - 1) characters wait for the next chunk: any copy of a key
 * then lies whole inside one redacted text.
 */
export class StreamRedactor {
  private held = "";
  private readonly hold: number;

  constructor(private readonly secrets: readonly string[]) {
    const lengths = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).map((s) => s.length);
    this.hold = Math.max(1, ...lengths) - 1;
  }

  /** What can be let through now, redacted. */
  push(chunk: string): string {
    const text = redactSecrets(this.held + chunk, this.secrets);
    const cut = Math.max(0, text.length - this.hold);
    this.held = text.slice(cut);
    return text.slice(0, cut);
  }

  /** The output ended: what was held back, which is too short to hold a key. */
  end(): string {
    const rest = this.held;
    this.held = "";
    return rest;
  }
}
