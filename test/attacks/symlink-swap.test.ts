// Attack: while patches add, update and delete files in src/, another process keeps swapping src/
// for a symlink to a folder outside the workspace. "Symlinks that leave the workspace are refused"
// must hold under that race: nothing may ever be written, changed or left behind outside.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  importChapter,
  isTempName,
  listTree,
  patch,
  report,
  SCALE,
  scratch,
  timeLimit,
  Worker,
  type ApplyPatchModule,
} from "./attack-kit.ts";

const TRIALS = 30 * SCALE;

describe("attack: a folder swapped for a symlink mid-patch", () => {
  it(
    `never writes outside the workspace (${TRIALS} rounds of Add, Update and Delete)`,
    async () => {
      const { applyPatch } = await importChapter<ApplyPatchModule>("src/patch/apply-patch.ts");
      const root = await scratch("swap-root");
      const outside = await scratch("swap-outside");
      await mkdir(path.join(root, "src"));
      await writeFile(path.join(root, "src", "f.txt"), "one\n");
      // A decoy with the same bytes: an update through the link would find its hunk there too.
      await writeFile(path.join(outside, "f.txt"), "one\n");

      const swapper = new Worker("swap-folder.ts", [root, "src", outside]);
      expect(await swapper.nextLine(), swapper.stderr).toBe("ready");
      const escapes: string[] = [];
      let patches = 0;
      for (let trial = 0; trial < TRIALS; trial += 1) {
        const current = await readFile(path.join(root, "src", "f.txt"), "utf8").catch(
          () => "one\n",
        );
        const [from, to] = current === "one\n" ? ["one", "two"] : ["two", "one"];
        for (const text of [
          patch(`*** Add File: src/new-${trial}.txt`, "+new"),
          patch("*** Update File: src/f.txt", "@@", `-${from}`, `+${to}`),
          patch(`*** Delete File: src/new-${trial}.txt`),
        ]) {
          await applyPatch(text, { cwd: root });
          patches += 1;
        }
        const seen = await readdir(outside);
        const decoy = await readFile(path.join(outside, "f.txt"), "utf8").catch(() => "(gone)");
        if (seen.length !== 1 || decoy !== "one\n") {
          escapes.push(
            `trial ${trial}: outside holds ${seen.join(", ")}; f.txt is ${JSON.stringify(decoy)}`,
          );
          // Put the decoy back and clear the rest, so each escape is counted once.
          for (const name of seen)
            await rm(path.join(outside, name), { recursive: true, force: true });
          await writeFile(path.join(outside, "f.txt"), "one\n");
        }
      }
      swapper.child.stdin.end();
      const swaps = await swapper.nextLine();
      await swapper.exited;

      report(
        "symlink-swap",
        `${patches} patches in ${TRIALS} rounds, ${swaps} swaps: ${escapes.length} rounds wrote outside`,
      );
      expect(Number(swaps)).toBeGreaterThan(0);
      expect(
        escapes,
        `${escapes.length} of ${TRIALS} rounds (${patches} patches) wrote outside`,
      ).toEqual([]);
      expect((await listTree(root)).filter((name) => isTempName(path.basename(name)))).toEqual([]);
    },
    timeLimit(60),
  );
});
