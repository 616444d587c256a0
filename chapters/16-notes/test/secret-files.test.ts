import { describe, expect, it } from "vitest";
import { isSecretFile, secretFilesAllowed } from "../src/fs/secret-files.ts";

describe("isSecretFile", () => {
  it("knows .env files, credential files and private keys by name, in any folder and case", () => {
    const secret = [
      ".env",
      ".ENV",
      "a/b/.env.test",
      ".npmrc",
      "id_ed25519",
      "x\\.netrc",
      "tls.PEM",
    ];
    expect(secret.filter(isSecretFile)).toEqual(secret);
  });

  it("leaves templates and files that merely mention keys alone", () => {
    const plain = [".env.example", "env.ts", "id_rsa.pub", "src/key.ts", "keys.json", "README"];
    expect(plain.filter(isSecretFile)).toEqual([]);
  });
});

describe("secretFilesAllowed", () => {
  it("is the user's opt-in: AGENT_READ_SECRETS=1, and nothing else", () => {
    expect(secretFilesAllowed({ AGENT_READ_SECRETS: "1" })).toBe(true);
    for (const value of [undefined, "", "0", "true", "yes"]) {
      expect(secretFilesAllowed({ AGENT_READ_SECRETS: value })).toBe(false);
    }
  });
});
