import { loadScript, startOfflineModel } from "@build-agent/shared/offline-model";
import type { Config } from "./config.ts";

/** A model we can talk to right now, and how to let go of it. */
export interface ModelEndpoint {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  close(): Promise<void>;
}

/**
 * The configured endpoint, or, with nothing configured, the offline model started in-process.
 * The offline model speaks the same HTTP API, so everything after this point is the same code.
 */
export async function openEndpoint(
  config: Exclude<Config, { kind: "invalid" }>,
  script = "chat",
): Promise<ModelEndpoint> {
  const { timeoutMs, maxRetries } = config;
  if (config.kind === "endpoint") {
    const { baseURL, apiKey, model } = config;
    return { baseURL, apiKey, model, timeoutMs, maxRetries, close: async () => {} };
  }
  // In a terminal, space the scripted words out a little so a reader sees the answer stream in, as
  // it would from a real model; piped output (tests, captures) gets it at full speed.
  const chunkDelayMs = process.stdout.isTTY ? 10 : 0;
  const offline = await startOfflineModel({ script: loadScript(script), chunkDelayMs });
  const { baseURL, apiKey, model } = offline;
  return { baseURL, apiKey, model, timeoutMs, maxRetries, close: () => offline.close() };
}
