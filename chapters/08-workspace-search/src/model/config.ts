import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { DEFAULT_CONTEXT_TOKENS } from "../context/context-budget.ts";

/**
 * Where the model lives and how patiently we talk to it.
 *
 * Configuration scheme (the same names the `openai` SDK and most OpenAI-compatible servers use):
 *   OPENAI_API_KEY     the key; optional for a local server (localhost / 127.0.0.1)
 *   OPENAI_BASE_URL    the endpoint; defaults to https://api.openai.com/v1 when a key is set
 *   AGENT_MODEL        the model name; required except for api.openai.com (default gpt-4.1-mini)
 *   AGENT_TIMEOUT_MS   how long to wait for the model before giving up (default 60000)
 *   AGENT_MAX_RETRIES  how often to retry a failed request (default 3)
 *   AGENT_CONTEXT_TOKENS  how many tokens a request may use (default 32000, see context-budget.ts)
 * With none of OPENAI_API_KEY / OPENAI_BASE_URL / AGENT_MODEL set, we run the offline model.
 */

export const OPENAI_BASE_URL = "https://api.openai.com/v1";
export const OPENAI_DEFAULT_MODEL = "gpt-4.1-mini";
// Local servers (Ollama, llama.cpp, LM Studio, vLLM) ignore the key, but the SDK insists on one.
export const LOCAL_PLACEHOLDER_KEY = "local";

export interface Limits {
  timeoutMs: number;
  maxRetries: number;
  contextTokens: number;
}

export type Config =
  | ({ kind: "endpoint"; baseURL: string; apiKey: string; model: string } & Limits)
  | ({ kind: "offline"; notice: string } & Limits)
  | { kind: "invalid"; message: string };

export const OFFLINE_NOTICE =
  "offline: no model configured (OPENAI_API_KEY / OPENAI_BASE_URL unset) — answers come from a scripted demo";

type Env = Record<string, string | undefined>;

/** Pure: the configuration that `env` plus the text of a `.env` file describe. */
export function resolveConfig(env: Env, dotenvText = ""): Config {
  const vars = mergeEnv(env, dotenvText);
  const limits = resolveLimits(vars);
  if (typeof limits === "string") return { kind: "invalid", message: limits };
  // A file written later (by a command the model ran, say) must not pick where your key goes.
  if (isSet(env.OPENAI_API_KEY) && !isSet(env.OPENAI_BASE_URL) && vars.OPENAI_BASE_URL) {
    return {
      kind: "invalid",
      message:
        "OPENAI_BASE_URL comes from .env but OPENAI_API_KEY from the environment: the key would go to a server a file chose. Set both in the same place: the environment, or the .env at the repository root",
    };
  }

  const apiKey = vars.OPENAI_API_KEY;
  const model = vars.AGENT_MODEL;
  if (apiKey === undefined && vars.OPENAI_BASE_URL === undefined) {
    if (model === undefined) return { kind: "offline", notice: OFFLINE_NOTICE, ...limits };
    return {
      kind: "invalid",
      message: `AGENT_MODEL is set to "${model}" but no endpoint is: set OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) or OPENAI_API_KEY for api.openai.com`,
    };
  }

  const baseURL = (vars.OPENAI_BASE_URL ?? OPENAI_BASE_URL).replace(/\/+$/, "");
  if (!isHttpURL(baseURL)) {
    return {
      kind: "invalid",
      message: `OPENAI_BASE_URL "${baseURL}" is not an http(s) URL: use e.g. https://api.openai.com/v1 or http://localhost:11434/v1`,
    };
  }
  const local = isLocalURL(baseURL);
  if (apiKey === undefined && !local) {
    return {
      kind: "invalid",
      message: `OPENAI_API_KEY is not set, but ${baseURL} is a remote endpoint that needs one: set OPENAI_API_KEY (environment or .env), or point OPENAI_BASE_URL at a local server`,
    };
  }
  const resolvedModel = model ?? (baseURL === OPENAI_BASE_URL ? OPENAI_DEFAULT_MODEL : undefined);
  if (resolvedModel === undefined) {
    return {
      kind: "invalid",
      message: `AGENT_MODEL is not set: name the model ${baseURL} should run, e.g. AGENT_MODEL=qwen2.5-coder`,
    };
  }
  return {
    kind: "endpoint",
    baseURL,
    apiKey: apiKey ?? LOCAL_PLACEHOLDER_KEY,
    model: resolvedModel,
    ...limits,
  };
}

/**
 * The `.env` at the root of this repository, wherever the agent is started from and whatever
 * folder it works on: a workspace's own `.env` is the model's to write, not yours.
 */
export const DOTENV_FILE = fileURLToPath(new URL("../../../../.env", import.meta.url));

/** Reads the real environment and the `.env` file (if there is one). */
export async function loadConfig(file = DOTENV_FILE, env: Env = process.env): Promise<Config> {
  return resolveConfig(env, await readDotenv(file));
}

async function readDotenv(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

/** The real environment wins over `.env`; an empty value counts as unset (`FOO= ` in a shell). */
function mergeEnv(env: Env, dotenvText: string): Env {
  const merged: Env = {};
  for (const source of [parseEnv(dotenvText), env]) {
    for (const [name, value] of Object.entries(source)) {
      if (isSet(value)) merged[name] = value.trim();
    }
  }
  return merged;
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

function resolveLimits(vars: Env): Limits | string {
  const timeoutMs = readInteger(vars, "AGENT_TIMEOUT_MS", 60_000, 1);
  if (typeof timeoutMs === "string") return timeoutMs;
  const maxRetries = readInteger(vars, "AGENT_MAX_RETRIES", 3, 0);
  if (typeof maxRetries === "string") return maxRetries;
  const contextTokens = readInteger(vars, "AGENT_CONTEXT_TOKENS", DEFAULT_CONTEXT_TOKENS, 1);
  if (typeof contextTokens === "string") return contextTokens;
  return { timeoutMs, maxRetries, contextTokens };
}

/** The number, or an error message that says what a valid value looks like. */
function readInteger(vars: Env, name: string, fallback: number, min: number): number | string {
  const text = vars[name];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    return `${name} must be a whole number >= ${min}, got "${text}" (default ${fallback})`;
  }
  return value;
}

function isHttpURL(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

export function isLocalURL(baseURL: string): boolean {
  const host = new URL(baseURL).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}
