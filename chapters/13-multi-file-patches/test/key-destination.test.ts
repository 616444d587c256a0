import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/model/config.ts";

// From chapter 22 on the model runs commands, and a command can write a file: the .env must not
// be able to choose the server a key from your environment is sent to.
describe("where the key goes", () => {
  const hostile = "OPENAI_BASE_URL=http://127.0.0.1:9/v1\nAGENT_MODEL=m\n";

  it("refuses a base URL from .env for a key from the environment: a file must not pick where it goes", () => {
    expect(resolveConfig({ OPENAI_API_KEY: "sk-from-env" }, hostile)).toEqual({
      kind: "invalid",
      message:
        "OPENAI_BASE_URL comes from .env but OPENAI_API_KEY from the environment: the key would go to a server a file chose. Set both in the same place: the environment, or the .env at the repository root",
    });
  });

  it("accepts both from .env, both from the environment, and a key from .env", () => {
    expect(resolveConfig({}, `OPENAI_API_KEY=sk-file\n${hostile}`)).toMatchObject({
      kind: "endpoint",
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "sk-file",
    });
    expect(
      resolveConfig(
        { OPENAI_API_KEY: "sk-env", OPENAI_BASE_URL: "http://localhost:1/v1" },
        hostile,
      ),
    ).toMatchObject({ kind: "endpoint", baseURL: "http://localhost:1/v1", apiKey: "sk-env" });
    // A base URL from the environment with a key from .env: you chose the server yourself.
    expect(
      resolveConfig(
        { OPENAI_BASE_URL: "http://localhost:1/v1" },
        `OPENAI_API_KEY=sk-file\n${hostile}`,
      ),
    ).toMatchObject({ kind: "endpoint", baseURL: "http://localhost:1/v1", apiKey: "sk-file" });
  });

  it("counts an empty environment variable as unset, in both directions", () => {
    // OPENAI_BASE_URL= in the shell does not make the .env's URL yours.
    expect(
      resolveConfig({ OPENAI_API_KEY: "sk-env", OPENAI_BASE_URL: " " }, hostile),
    ).toMatchObject({ kind: "invalid" });
    // OPENAI_API_KEY= in the shell means the key comes from .env too, next to its URL.
    expect(
      resolveConfig({ OPENAI_API_KEY: "" }, `OPENAI_API_KEY=sk-file\n${hostile}`),
    ).toMatchObject({ kind: "endpoint", apiKey: "sk-file" });
  });
});
