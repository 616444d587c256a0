// Start-up: what one call of the apply-patch CLI costs on a tiny patch (a one-line file), where
// starting the process is nearly everything. Against `node -e 0`, the least any Node program costs,
// and the ways the CLI can be started: the bundle (`node dist/apply-patch.mjs`, what `pnpm
// apply-patch` and the bin run), the TypeScript source through tsx (how it ran before the bundle),
// and `pnpm apply-patch` itself; GNU patch and git apply for scale.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../scripts/lib/chapters.ts";
import { scratchDir, type BenchContext, type SectionResult } from "./context.ts";
import { hasProgram, race, timeProcess, type Contender, type Stats } from "./measure.ts";
import { ratio, ratioText, row, timing, type Row } from "./report.ts";

const TINY_PATCH = "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch\n";
const TINY_DIFF = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";

export async function measureStartup(context: BenchContext): Promise<SectionResult> {
  /** A contender running in a folder of its own, where f.txt is put back before every run. */
  const contender = (name: string, command: string[]): Contender => {
    const dir = scratchDir(context, `startup-${name.replace(/\W+/g, "-")}`);
    writeFileSync(join(dir, "change.patch"), TINY_PATCH);
    writeFileSync(join(dir, "change.diff"), TINY_DIFF);
    return {
      name,
      setup: () => {
        writeFileSync(join(dir, "f.txt"), "a\n");
        rmSync(join(dir, ".agent"), { recursive: true, force: true });
      },
      run: () => timeProcess({ command, cwd: dir, stdoutFile: join(dir, "stdout.txt") }),
    };
  };
  const node = process.execPath;
  const contenders = [
    contender("node -e 0", [node, "-e", "0"]),
    contender("bundle", [node, context.bundle, "change.patch"]),
    contender("tsx", [
      node,
      "--import",
      import.meta.resolve("tsx"),
      context.cliSource,
      "change.patch",
    ]),
  ];
  // pnpm costs about two seconds of CPU a call: the full run only.
  if (!context.quick && hasProgram("pnpm")) {
    contenders.push(
      contender("pnpm", ["pnpm", "--silent", "--dir", ROOT, "apply-patch", "change.patch"]),
    );
  }
  if (hasProgram("patch"))
    contenders.push(contender("patch", ["patch", "-s", "-p1", "-i", "change.diff"]));
  if (hasProgram("git")) contenders.push(contender("git", ["git", "apply", "change.diff"]));

  const stats = await race(contenders, {
    warmup: 1,
    minRounds: context.quick ? 2 : 5,
    maxRounds: context.quick ? 2 : 11,
    budgetMs: 20_000,
  });
  const base = stats.get("node -e 0")!;
  const versus = (name: string, measure: string): Row[] => {
    const ours = stats.get(name);
    if (ours === undefined) return [];
    const r = ratio(ours, base);
    return [
      row({
        section: "Start-up",
        measure,
        ours: timing(ours),
        reference: `node -e 0: ${timing(base)}`,
        value: r.cpu,
        result: ratioText(r),
        limit: undefined,
      }),
    ];
  };
  const rows = [
    ...versus("bundle", "node dist/apply-patch.mjs, tiny patch, against node -e 0"),
    ...versus("tsx", "the CLI's source through tsx (before the bundle), against node -e 0"),
    ...versus("pnpm", "pnpm apply-patch (pnpm, then the bundle), against node -e 0"),
  ];
  const patch = stats.get("patch");
  if (patch !== undefined) {
    const git = stats.get("git");
    const r = ratio(stats.get("bundle")!, patch);
    rows.push(
      row({
        section: "Start-up",
        measure: "node dist/apply-patch.mjs against GNU patch, tiny patch",
        ours: timing(stats.get("bundle")!),
        reference: `GNU patch: ${timing(patch)}` + (git ? `; git apply: ${timing(git)}` : ""),
        value: r.cpu,
        result: ratioText(r),
        limit: undefined,
      }),
    );
  }
  return { rows, data: Object.fromEntries(stats) as Record<string, Stats> };
}
