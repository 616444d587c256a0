// Exercise "Ask with a system prompt": with AGENT_SYSTEM_PROMPT set, main sends it as a system
// message before the question; without it, the request is the question alone. main runs
// in-process against the offline model, its output captured.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadScript, startOfflineModel } from "../../../shared/src/offline-model/index.ts";

interface Main {
  main(args: string[]): Promise<number>;
}

const NAMES = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_MODEL", "AGENT_SYSTEM_PROMPT"];

export default async function check(chapterDir: string): Promise<void> {
  const { main } = (await import(pathToFileURL(join(chapterDir, "src/main.ts")).href)) as Main;
  const server = await startOfflineModel({ script: loadScript("chat") });
  const saved = NAMES.map((name) => [name, process.env[name]] as const);
  const write = { out: process.stdout.write, err: process.stderr.write };
  let printed = "";
  const capture = (chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  };
  try {
    process.env.OPENAI_API_KEY = server.apiKey;
    process.env.OPENAI_BASE_URL = server.baseURL;
    process.env.AGENT_MODEL = server.model;
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    process.env.AGENT_SYSTEM_PROMPT = "Answer in French.";
    const withPrompt = await main(["hi"]);
    delete process.env.AGENT_SYSTEM_PROMPT;
    const without = await main(["hi"]);
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    assert.equal(withPrompt, 0, `main should answer; it printed:\n${printed}`);
    assert.equal(without, 0, `main should answer without the setting too; it printed:\n${printed}`);
    assert.deepEqual(
      server.requests[0]?.messages,
      [
        { role: "system", content: "Answer in French." },
        { role: "user", content: "hi" },
      ],
      "with AGENT_SYSTEM_PROMPT set, the request should be the system message, then the question",
    );
    assert.deepEqual(
      server.requests[1]?.messages,
      [{ role: "user", content: "hi" }],
      "without AGENT_SYSTEM_PROMPT, the request should be the question alone",
    );
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await server.close();
  }
}
