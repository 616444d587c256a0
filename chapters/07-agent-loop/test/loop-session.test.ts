import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { startConversation } from "../src/conversation.ts";
import { CtrlC } from "../src/loop/ctrl-c.ts";
import { DEFAULT_BUDGETS } from "../src/loop/budgets.ts";
import { runSession, SESSION_HELP } from "../src/loop/interactive.ts";
import { TerminalUi } from "../src/loop/terminal-ui.ts";
import { createModelClient } from "../src/model-client.ts";
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
