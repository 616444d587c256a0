import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { startConversation } from "../src/context/conversation.ts";
import { CtrlC } from "../src/loop/ctrl-c.ts";
import { DEFAULT_BUDGETS } from "../src/loop/budgets.ts";
import { runSession, SESSION_HELP } from "../src/loop/interactive.ts";
import { TerminalUi } from "../src/loop/terminal-ui.ts";
import { createModelClient } from "../src/model/model-client.ts";
import { loopFixture, type LoopFixture } from "./loop-harness.ts";

let fixture: LoopFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function sink() {
  let text = "";
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

describe("the interactive session", () => {
  it("runs each line as a task, prints a summary, and ends at /exit", async () => {
    fixture = await loopFixture("fix-bug");
    const out = sink();
    const err = sink();
    const code = await runSession({
      workspace: fixture.workspace,
      conversation: startConversation("You are a test agent."),
      client: createModelClient({
        baseURL: fixture.offline.baseURL,
        apiKey: fixture.offline.apiKey,
        timeoutMs: 20_000,
      }),
      model: fixture.offline.model,
      maxRetries: 0,
      contextTokens: 100_000,
      budgets: DEFAULT_BUDGETS,
      yes: false,
      ui: new TerminalUi(out, err),
      ctrlC: new CtrlC(
        () => {},
        () => {},
      ),
      input: Readable.from(["\n", "fix the coupon bug\n", "/exit\n", "never run\n"]),
      output: new PassThrough(),
    });
    expect(code).toBe(0);
    expect(fixture.offline.requests).toHaveLength(3);
    expect(await readFile(join(fixture.workspace, "src/cart.mjs"), "utf8")).toContain(
      "const goods = Math.max(0, subtotal(items) - couponCents);",
    );
    expect(out.text()).toContain(SESSION_HELP);
    expect(out.text()).toContain("result: done\nchanged files: M src/cart.mjs\n");
  });
});

describe("the interactive session in a terminal", () => {
  it("asks y/N for a risky patch on its own line, applies it on y, and ends on Ctrl-D", async () => {
    fixture = await loopFixture("loop-delete");
    // A stand-in terminal: readline runs in terminal mode when the input says it is a TTY.
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
    const output = new PassThrough();
    let screen = "";
    output.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      if (screen.endsWith("Apply it? [y/N] ")) input.write("y\r");
    });
    const out = sink();
    const session = runSession({
      workspace: fixture.workspace,
      conversation: startConversation("You are a test agent."),
      client: createModelClient({
        baseURL: fixture.offline.baseURL,
        apiKey: fixture.offline.apiKey,
        timeoutMs: 20_000,
      }),
      model: fixture.offline.model,
      maxRetries: 0,
      contextTokens: 100_000,
      budgets: DEFAULT_BUDGETS,
      yes: false,
      // The UI and readline share one screen, as on a real terminal.
      ui: new TerminalUi({ write: (t: string) => output.write(t) && out.write(t) }, sink()),
      ctrlC: new CtrlC(
        () => {},
        () => {},
      ),
      input,
      output,
    });
    input.write("delete the readme\r");
    // Ctrl-D once the run's summary is out and the prompt is back.
    const poll = setInterval(() => {
      if (screen.includes("\nundo: ") && screen.endsWith("\n\x1b[1G\x1b[0J> \x1b[3G")) {
        input.write("\x04");
      }
    }, 10);
    const code = await session.finally(() => clearInterval(poll));

    expect(code).toBe(0);
    // The model's text ended its line before the question, so readline did not redraw over it.
    expect(out.text()).toContain("Deleting the README.\n");
    // (\x1b[0m: plain attributes first; readline moves the cursor: \x1b[1G is column 1, \x1b[0J clears below.)
    expect(screen).toContain(
      "Deleting the README.\n\x1b[0m\x1b[1G\x1b[0JThis patch deletes README.md. Apply it? [y/N] y",
    );
    expect(out.text()).toContain("changed files: D README.md\n");
    // The shell's prompt after Ctrl-D starts on a line of its own.
    expect(screen.endsWith("> \x1b[3G\n")).toBe(true);
  });
});

describe("Ctrl-C", () => {
  it("aborts the run on the first press and exits on the second", () => {
    const calls: string[] = [];
    const ctrlC = new CtrlC(
      () => calls.push("notice"),
      () => calls.push("exit"),
    );
    const first = ctrlC.nextRun();
    ctrlC.press();
    expect(first.aborted).toBe(true);
    expect(calls).toEqual(["notice"]);
    ctrlC.press();
    expect(calls).toEqual(["notice", "exit"]);

    // The next run starts with a fresh signal and a fresh count.
    const second = ctrlC.nextRun();
    expect(second.aborted).toBe(false);
    ctrlC.press();
    expect(calls).toEqual(["notice", "exit", "notice"]);
  });
});
