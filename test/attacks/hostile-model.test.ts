// Attack: a model server that answers every request with a tool call whose arguments are a 1 MB
// run without spaces (base64 of zeros: AAAA…). The tokenizer's merging is quadratic on such a run,
// and counting it used to block the process for many minutes before any budget was checked, so
// `--max-time` could not fire. The run must now end by its time budget, promptly.
//
// The agent runs as a child process (`pnpm start`, the newest chapter), so a regression that
// blocks it cannot block this test: the child is killed after a deadline and the test fails.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { copyDemoRepo } from "../../shared/src/demo-repo.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BLOB = Buffer.alloc(750_000).toString("base64"); // 1,000,000 characters, all "A"
const DEADLINE_MS = 90_000;

let server: Server | undefined;
let workspace: string | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

/** Streams one read_file call with the blob as its path, for every request; reports no usage. */
async function startHostileModel(): Promise<string> {
  let served = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      served += 1;
      const call = {
        index: 0,
        id: `call_${served}`,
        type: "function",
        function: { name: "read_file", arguments: JSON.stringify({ path: BLOB }) },
      };
      const chunk = (choice: object) =>
        `data: ${JSON.stringify({ id: `c${served}`, object: "chat.completion.chunk", created: 0, model: "hostile", choices: [{ index: 0, ...choice }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        chunk({ delta: { role: "assistant", tool_calls: [call] }, finish_reason: null }) +
          chunk({ delta: {}, finish_reason: "tool_calls" }) +
          "data: [DONE]\n\n",
      );
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

it(
  "a 1 MB tool-call argument without spaces: the run ends by --max-time, not never",
  async () => {
    workspace = await copyDemoRepo("attack-hostile-model-");
    const baseURL = await startHostileModel();
    const child = spawn(
      "pnpm",
      [
        "start",
        "--",
        // The blob counts 125,000 tokens a call: room for them, so the time budget is what stops
        // the run, as it could not before.
        "--max-tokens",
        "1000000000",
        "--max-time",
        "3s",
        "--repo",
        workspace,
        "fix the coupon bug",
      ],
      {
        cwd: ROOT,
        // Its own process group, so a hung run can be killed whole.
        detached: true,
        env: {
          ...process.env,
          NO_COLOR: "1",
          OPENAI_BASE_URL: baseURL,
          OPENAI_API_KEY: "hostile",
          AGENT_MODEL: "hostile",
          // Room for the blob in the context too.
          AGENT_CONTEXT_TOKENS: "100000000",
          INIT_CWD: undefined,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    let killed = false;
    const deadline = setTimeout(() => {
      killed = true;
      process.kill(-child.pid!, "SIGKILL");
    }, DEADLINE_MS);
    await new Promise((resolve) => child.on("close", resolve));
    clearTimeout(deadline);

    expect(killed, `the run was still going after ${DEADLINE_MS / 1000} s`).toBe(false);
    // The tail only: the output echoes the blob.
    expect(stdout.slice(-2_000) + stderr.slice(-2_000)).toContain(
      "result: stopped: time budget used up",
    );
    const runs = await readdir(join(workspace, ".agent", "runs"));
    const lines = (await readFile(join(workspace, ".agent", "runs", runs[0]!), "utf8"))
      .trimEnd()
      .split("\n");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: "run_end", reason: "budget" });
  },
  DEADLINE_MS + 30_000,
);
