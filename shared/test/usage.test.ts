import { describe, expect, it } from "vitest";
import { countTextTokens } from "../../chapters/06-context-budget/src/context/token-counter.ts";
import { countTokens } from "../src/offline-model/usage.ts";

describe("the offline model's token counts", () => {
  it("agree with chapter 06's counter, long runs included", () => {
    const samples = [
      "The total with a coupon is wrong.",
      "=".repeat(20_000),
      `key: ${"QUJD".repeat(3_000)} end`,
      " ".repeat(1_000) + "x",
      "表".repeat(700),
      "😀".repeat(300),
    ];
    for (const text of samples) expect(countTokens(text)).toBe(countTextTokens(text));
  });

  it("count a megabyte without a break in pieces, so the server never stalls on it", () => {
    // Whole, this run would take the tokenizer many minutes; in pieces, its count is about one
    // token per 3–4 characters of base64, as for any short sample of it.
    const blob = "QUJD".repeat(250_000);
    const perChar = countTokens("QUJD".repeat(64)) / 256;
    expect(countTokens(blob) / blob.length).toBeCloseTo(perChar, 1);
  });
});
