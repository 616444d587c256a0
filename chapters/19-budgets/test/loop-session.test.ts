import { describe, expect, it } from "vitest";
import { CtrlC } from "../src/loop/ctrl-c.ts";

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
