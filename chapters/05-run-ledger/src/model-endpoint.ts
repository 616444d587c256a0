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
  const offline = await startOfflineModel({ script: loadScript(script) });
  const { baseURL, apiKey, model } = offline;
  return { baseURL, apiKey, model, timeoutMs, maxRetries, close: () => offline.close() };
}
