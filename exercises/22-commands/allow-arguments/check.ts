// Exercise "Allow any arguments": an allowed command that ends in " *" (`node check.mjs *`)
// allows that command with any plain arguments, but never a second command: `;`, `&&`, `|`,
// `$(`, backticks, redirections and line breaks are still asked about.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

type Mode = "ask" | "allow-list" | "deny";
interface PolicyModule {
  judgeCommand(
    policy: { mode: Mode; allowed: readonly string[] },
    command: string,
  ): "run" | "ask" | "refuse";
}

export default async function check(chapterDir: string): Promise<void> {
  const { judgeCommand } = (await import(
    pathToFileURL(join(chapterDir, "src/commands/command-policy.ts")).href
  )) as PolicyModule;
  const policy = { mode: "ask" as const, allowed: ["node check.mjs *", "pnpm test"] };
  const judge = (command: string) => judgeCommand(policy, command);

  for (const command of [
    "node check.mjs",
    "node check.mjs --verbose",
    "node check.mjs src/cart.mjs --only coupon",
    "  node check.mjs -v  ",
  ]) {
    assert.equal(judge(command), "run", `"node check.mjs *" should allow: ${command}`);
  }

  for (const command of [
    "node check.mjs; rm -rf ~",
    "node check.mjs && rm -rf ~",
    "node check.mjs || rm -rf ~",
    "node check.mjs | sh",
    "node check.mjs & rm -rf ~",
    "node check.mjs $(rm -rf ~)",
    "node check.mjs `rm -rf ~`",
    "node check.mjs > package.json",
    "node check.mjs < /etc/passwd",
    "node check.mjs\nrm -rf ~",
    "node check.mjs.evil",
    "node check.mjsx --verbose",
    "node",
  ]) {
    assert.equal(
      judge(command),
      "ask",
      `"node check.mjs *" must not allow: ${JSON.stringify(command)}`,
    );
  }

  // Without the star, the text is still exact.
  assert.equal(judge("pnpm test"), "run");
  assert.equal(judge("pnpm test --watch"), "ask", '"pnpm test" has no star: only the exact text');
  assert.equal(
    judgeCommand({ mode: "deny", allowed: ["node check.mjs *"] }, "node check.mjs -v"),
    "refuse",
    "deny still refuses everything",
  );
  assert.equal(
    judgeCommand({ mode: "allow-list", allowed: ["node check.mjs *"] }, "node check.mjs; ls"),
    "refuse",
  );
}
