import { createHash } from "node:crypto";

/** SHA-256 of exact bytes, hex. Chapter 11's patch guard compares these. */
export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}
