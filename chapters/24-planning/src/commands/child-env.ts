/**
 * The environment a command runs with. The agent's own environment holds the API key, and a
 * command the model wrote could print it (`env`), send it somewhere, or write it into a file
 * the next commit carries. So nothing is inherited by default: a short allow-list of what
 * programs need to run is passed through, and even those are dropped if they look like a secret.
 */
import { MIN_SECRET_LENGTH } from "./redact-secrets.ts";

/** Passed through when set; everything else in the agent's environment stays behind. */
export const ENV_ALLOW_LIST: readonly string[] = [
  // Where programs are, and who and where the user is: git, npm and pnpm find their config here.
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  // How to encode and sort text: without a UTF-8 locale, tools print non-ASCII names as `?`.
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  // Some tools refuse to start without TERM; output goes to a pipe, so they do not colour it.
  "TERM",
  "TZ",
  "TMPDIR",
  // How the project's own scripts expect to behave: CI=true means "ask nothing, run once".
  "CI",
  "NODE_ENV",
];
// Left out on purpose: NODE_OPTIONS (it loads code into every node process), proxy settings
// (their URLs can carry a password), and every *_KEY/*_TOKEN a project might want: a person
// who wants a command to have a credential runs that command themselves.

/** A name that says "credential". Nothing on the list matches today: this guards additions. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH|OPENAI_|AGENT_/i;

/** Values shaped like well-known keys: OpenAI-style, GitHub and AWS access keys. */
const KEY_SHAPED = [/sk-[A-Za-z0-9_-]{16,}/, /gh[pousr]_[A-Za-z0-9]{20,}/, /AKIA[0-9A-Z]{16}/];

export function childEnv(parent: NodeJS.ProcessEnv, secrets: readonly string[]): NodeJS.ProcessEnv {
  const known = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  const env: NodeJS.ProcessEnv = {};
  for (const name of ENV_ALLOW_LIST) {
    const value = parent[name];
    if (value === undefined || SECRET_NAME.test(name)) continue;
    // A key pasted into an innocent name (PATH=...:sk-...) is still a key.
    if (known.some((secret) => value.includes(secret))) continue;
    if (KEY_SHAPED.some((shape) => shape.test(value))) continue;
    env[name] = value;
  }
  return env;
}
