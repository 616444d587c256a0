import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";

/**
 * A staged file's contents as the engine leaves them: stretches of the text it was given, by
 * offset, and strings of new lines between them. Joined, they are the new text. But joining
 * copies the whole file, and encoding the joined text to write it copies it again, so the text
 * is joined only if someone asks for it. When the old text was decoded from bytes read from disk,
 * the bytes written for each unchanged stretch are a view of those bytes: nothing is copied, and
 * the contents are encoded and hashed once, however often they are asked for.
 */
export type Stretch = string | { from: number; to: number };

export class FileContents {
  private joined: string | undefined;
  private encoded: Uint8Array[] | undefined;
  private hash: string | undefined;

  /** `sourceBytes`, when given, are the UTF-8 bytes that `source` was decoded from. */
  private constructor(
    private readonly source: string,
    private readonly stretches: readonly Stretch[],
    private readonly sourceBytes?: Uint8Array,
  ) {}

  /** Contents given as one string: an added file, a whole-file replacement. */
  static of(text: string): FileContents {
    return new FileContents(text, [text]);
  }

  /** The contents of a file as read: its bytes, decoded once, with their hash. */
  static read(bytes: Buffer, sha256: string): FileContents {
    const text = bytes.toString("utf8");
    // Bytes that are not UTF-8 decode with U+FFFD in their place: re-encoding changes them.
    if (!isUtf8(bytes)) return FileContents.of(text);
    const read = new FileContents(text, [{ from: 0, to: text.length }], bytes);
    read.hash = sha256;
    return read;
  }

  get text(): string {
    this.joined ??= joinStretches(this.source, this.stretches);
    return this.joined;
  }

  /** The contents after an edit of this text, given as stretches of it. */
  edit(stretches: readonly Stretch[]): FileContents {
    const text = this.text;
    return new FileContents(text, stretches, text === this.source ? this.sourceBytes : undefined);
  }

  /** The UTF-8 bytes, in pieces, to be written one after the other. */
  bytes(): Uint8Array[] {
    this.encoded ??= this.sourceBytes === undefined ? this.encodeAll() : this.viewsOfSource();
    return this.encoded;
  }

  /** SHA-256 of the bytes, hex, as the hash guard and the result report it. */
  get sha256(): string {
    if (this.hash === undefined) {
      const hash = createHash("sha256");
      for (const piece of this.bytes()) hash.update(piece);
      this.hash = hash.digest("hex");
    }
    return this.hash;
  }

  private encodeAll(): Uint8Array[] {
    return this.stretches.map((s) => Buffer.from(piece(this.source, s), "utf8"));
  }

  /**
   * Offsets count UTF-16 code units; the bytes agree with them up to the first character outside
   * ASCII. So in a text with such characters, the bytes between two offsets are counted, walking
   * forwards: the engine's stretches come in the order of the text.
   */
  private viewsOfSource(): Uint8Array[] {
    const bytes = this.sourceBytes!;
    const ascii = bytes.length === this.source.length;
    let char = 0;
    let byte = 0;
    const byteAt = (offset: number): number => {
      if (ascii) return offset;
      if (offset < char) [char, byte] = [0, 0];
      byte += Buffer.byteLength(this.source.slice(char, offset), "utf8");
      char = offset;
      return byte;
    };
    return this.stretches.map((s) =>
      typeof s === "string" ? Buffer.from(s, "utf8") : bytes.subarray(byteAt(s.from), byteAt(s.to)),
    );
  }
}

function piece(source: string, stretch: Stretch): string {
  return typeof stretch === "string" ? stretch : source.slice(stretch.from, stretch.to);
}

/** The stretches as one string; a stretch of the whole source is the source itself, not a copy. */
export function joinStretches(source: string, stretches: readonly Stretch[]): string {
  const [first] = stretches;
  const whole = typeof first === "object" && first.from === 0 && first.to === source.length;
  if (whole && stretches.length === 1) return source;
  return stretches.map((s) => piece(source, s)).join("");
}
