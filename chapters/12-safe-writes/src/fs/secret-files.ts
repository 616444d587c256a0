import path from "node:path";

/**
 * Files that usually hold keys, passwords or tokens. Whatever a tool shows
 * the model is sent to the model's provider, and changing code never needs
 * these values, so the tools leave such files out: read_file refuses them and
 * search_text skips them. The user, not the model, can let them through with
 * AGENT_READ_SECRETS=1 in the environment.
 */
// prettier-ignore
const SECRET_NAMES = new Set([
  ".npmrc", ".yarnrc.yml", ".pypirc", ".netrc", "_netrc", ".pgpass", ".git-credentials", ".htpasswd",
  "credentials", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519",
]);
const SECRET_SUFFIXES = [".pem", ".key", ".p12", ".pfx"];
// Committed templates of an .env file list the names, without the values.
const ENV_TEMPLATES = new Set([".env.example", ".env.sample", ".env.template", ".env.dist"]);

/** True for .env and .env.* (not their templates), credential files and private keys, in any folder. */
export function isSecretFile(relativePath: string): boolean {
  // Lower case: on macOS and Windows ".ENV" is the same file as ".env".
  const name = path.posix.basename(relativePath.replaceAll("\\", "/")).toLowerCase();
  if (name === ".env" || name.startsWith(".env.")) return !ENV_TEMPLATES.has(name);
  return SECRET_NAMES.has(name) || SECRET_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/** The user's opt-in: AGENT_READ_SECRETS=1 lets the tools show secret files. */
export function secretFilesAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.AGENT_READ_SECRETS === "1";
}
