import { APIConnectionError, APIError, AuthenticationError } from "openai";
import { describe, expect, it } from "vitest";
import { AbortedError, ModelTimeoutError } from "../src/model/model-errors.ts";
import { isRetryable, retryAfterMs, retryDelayMs, withRetry } from "../src/model/retry.ts";
import { AnswerTooLongError, StreamCutError } from "../src/model/stream-assembler.ts";

function httpError(status: number, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { error: { message: "nope" } }, undefined, new Headers(headers));
}

/** An attempt function that fails with the given errors, then returns "ok". */
function failing(...errors: unknown[]) {
  let calls = 0;
  const attempt = async () => {
    calls++;
    const error = errors.shift();
    if (error !== undefined) throw error;
    return "ok";
  };
  return { attempt, calls: () => calls };
}

describe("isRetryable", () => {
  it("retries 408, 409, 429, 5xx, connection errors, stalls and cut streams only", () => {
    for (const status of [408, 409, 429, 500, 502, 503])
      expect(isRetryable(httpError(status))).toBe(true);
    for (const status of [400, 401, 403, 404, 422])
      expect(isRetryable(httpError(status))).toBe(false);
    expect(isRetryable(new APIConnectionError({ message: "refused" }))).toBe(true);
    expect(isRetryable(new ModelTimeoutError(100))).toBe(true);
    expect(isRetryable(new StreamCutError())).toBe(true);
    // A server that streams on and on would do it again: the size limit is final.
    expect(isRetryable(new AnswerTooLongError(10))).toBe(false);
    expect(isRetryable(new AbortedError())).toBe(false);
    expect(isRetryable(new Error("bug"))).toBe(false);
  });
});

describe("retry delays", () => {
  it("honours Retry-After in seconds and as an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2000);
    const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 21 Oct 2015 07:28:03 GMT" }), now)).toBe(
      3000,
    );
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it("backs off exponentially with jitter between half and all of the step, capped at 8 s", () => {
    const error = httpError(500);
    expect(retryDelayMs(error, 1, () => 0)).toBe(250);
    expect(retryDelayMs(error, 1, () => 0.999999)).toBe(500);
    expect(retryDelayMs(error, 3, () => 0)).toBe(1000);
    expect(retryDelayMs(error, 10, () => 0.999999)).toBe(8000);
  });

  it("prefers the server's Retry-After to its own backoff, but waits at most a minute", () => {
    expect(retryDelayMs(httpError(429, { "retry-after": "7" }), 1, () => 0)).toBe(7000);
    expect(retryDelayMs(httpError(429, { "retry-after": "3600" }), 1, () => 0)).toBe(60_000);
  });
});

describe("withRetry", () => {
  it("retries a retryable failure and sleeps the computed delay", async () => {
    const { attempt, calls } = failing(httpError(429, { "retry-after": "2" }), httpError(503));
    const sleeps: number[] = [];
    const result = await withRetry(attempt, {
      maxRetries: 3,
      random: () => 0,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(result).toBe("ok");
    expect(calls()).toBe(3);
    expect(sleeps).toEqual([2000, 500]);
  });

  it("gives up after maxRetries with the last error", async () => {
    const last = httpError(500);
    const { attempt, calls } = failing(httpError(500), httpError(500), last);
    await expect(withRetry(attempt, { maxRetries: 2, sleep: async () => {} })).rejects.toBe(last);
    expect(calls()).toBe(3);
  });

  it("never retries an error that cannot succeed unchanged", async () => {
    const error = APIError.generate(401, {}, undefined, new Headers());
    expect(error).toBeInstanceOf(AuthenticationError);
    const { attempt, calls } = failing(error);
    await expect(withRetry(attempt, { maxRetries: 3, sleep: async () => {} })).rejects.toBe(error);
    expect(calls()).toBe(1);
  });

  it("never retries once canRetry says no (text already shown)", async () => {
    const { attempt, calls } = failing(httpError(500));
    await expect(
      withRetry(attempt, { maxRetries: 3, canRetry: () => false, sleep: async () => {} }),
    ).rejects.toThrow();
    expect(calls()).toBe(1);
  });

  it("never retries after the abort signal fired, not even mid-sleep", async () => {
    const controller = new AbortController();
    const { attempt, calls } = failing(httpError(500), httpError(500));
    const sleep = async () => controller.abort();
    await expect(
      withRetry(attempt, { maxRetries: 3, signal: controller.signal, sleep }),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(calls()).toBe(1);

    const aborted = failing(httpError(500));
    await expect(
      withRetry(aborted.attempt, {
        maxRetries: 3,
        signal: AbortSignal.abort(),
        sleep: async () => {},
      }),
    ).rejects.toBeInstanceOf(APIError);
    expect(aborted.calls()).toBe(1);
  });
});
