// Writes docs/outputs/patch-errors.md: one real apply_patch failure per error code, produced by
// running chapter 13's patch engine on a small scratch workspace. The reference page includes it,
// so the messages a reader sees are the ones the code prints; test/site/outputs-fresh.test.ts
// fails when the committed file is stale.
//
//   pnpm exec tsx scripts/capture-patch-errors.ts
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { applyPatch } from "../chapters/13-multi-file-patches/src/patch/apply-patch.ts";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
export const PATCH_ERRORS_FILE = join(ROOT, "docs", "outputs", "patch-errors.md");

interface Scenario {
  code: string;
  /** What the writer of the patch did wrong, as a sentence. */
  situation: string;
  patch: string[];
  /** Hashes the writer claims to have seen (as `--expect PATH=SHA256` on the command line). */
  expect?: Record<string, string>;
  /** Agent mode: a file must have been read before it is changed. */
  requireRead?: boolean;
}

const CART = ["export function total(items) {", "  return sum(items);", "}", ""].join("\n");
const TWICE = ["if (ready) {", "  start();", "}", "if (ready) {", "  start();", "}", ""].join("\n");

/** The scratch workspace every scenario starts from, and a folder outside it. */
function makeWorkspace(): { dir: string; outside: string } {
  // Real paths, because that is what the messages show (a temp folder may sit behind a symlink).
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "patch-errors-")));
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "patch-errors-outside-")));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "cart.ts"), CART);
  writeFileSync(join(dir, "src", "start.ts"), TWICE);
  symlinkSync(outside, join(dir, "vendor"));
  return { dir, outside };
}

/** Scratch paths vary per run; a reader sees stable, readable ones. */
function readablePaths(text: string, dir: string, outside: string): string {
  return text.replaceAll(dir, "/work/project").replaceAll(outside, "/tmp/elsewhere");
}

const update = (path: string, ...lines: string[]) => [`*** Update File: ${path}`, ...lines];

export const SCENARIOS: Scenario[] = [
  {
    code: "invalid_patch",
    situation: "The model left out the first line of the patch.",
    patch: [
      ...update(
        "src/cart.ts",
        "@@",
        "-  return sum(items);",
        "+  return sum(items) - discount(items);",
      ),
      "*** End Patch",
    ],
  },
  {
    code: "invalid_patch",
    situation: "The whole patch was squeezed onto one line.",
    patch: ["*** Begin Patch *** Update File: src/cart.ts @@ -a +b *** End Patch"],
  },
  {
    code: "invalid_patch",
    situation: "The patch was cut off before its end.",
    patch: [
      "*** Begin Patch",
      ...update("src/cart.ts", "@@", "-  return sum(items);", "+  return 0;"),
    ],
  },
  {
    code: "path_escape",
    situation: "A path leaves the workspace with `..`.",
    patch: ["*** Begin Patch", "*** Add File: ../notes.txt", "+hello", "*** End Patch"],
  },
  {
    code: "symlink",
    situation: "`vendor` is a symlink to a folder outside the workspace.",
    patch: ["*** Begin Patch", "*** Add File: vendor/lib.ts", "+export {};", "*** End Patch"],
  },
  {
    code: "disallowed_path",
    situation: "The patch writes into `.git/`.",
    patch: [
      "*** Begin Patch",
      "*** Add File: .git/hooks/pre-commit.sh",
      "+exit 0",
      "*** End Patch",
    ],
  },
  {
    code: "file_exists",
    situation: "Add File names a file that already exists.",
    patch: ["*** Begin Patch", "*** Add File: src/cart.ts", "+export {};", "*** End Patch"],
  },
  {
    code: "file_not_found",
    situation: "Update File names a file that does not exist.",
    patch: ["*** Begin Patch", ...update("src/basket.ts", "@@", "-a", "+b"), "*** End Patch"],
  },
  {
    code: "not_read",
    situation: "In the agent: the model patches a file it has not read in this run.",
    patch: [
      "*** Begin Patch",
      ...update("src/cart.ts", "@@", "-  return sum(items);", "+  return 0;"),
      "*** End Patch",
    ],
    requireRead: true,
  },
  {
    code: "file_changed",
    situation: "The file changed since the writer saw it (its hash differs from the expected one).",
    patch: [
      "*** Begin Patch",
      ...update("src/cart.ts", "@@", "-  return sum(items);", "+  return 0;"),
      "*** End Patch",
    ],
    expect: { "src/cart.ts": "0".repeat(64) },
  },
  {
    code: "context_not_found",
    situation: "The lines to replace are not in the file (the model misremembered them).",
    patch: [
      "*** Begin Patch",
      ...update("src/cart.ts", "@@", "-  return items.sum();", "+  return 0;"),
      "*** End Patch",
    ],
  },
  {
    code: "ambiguous_context",
    situation: "The lines to replace occur twice, and nothing says which is meant.",
    patch: [
      "*** Begin Patch",
      ...update("src/start.ts", "@@", " if (ready) {", "-  start();", "+  begin();"),
      "*** End Patch",
    ],
  },
  {
    code: "too_many_files",
    situation: "One patch adds eleven files (the default limit is 10).",
    patch: [
      "*** Begin Patch",
      ...Array.from({ length: 11 }, (_, i) => [
        `*** Add File: src/part${i + 1}.ts`,
        "+export {};",
      ]).flat(),
      "*** End Patch",
    ],
  },
  {
    code: "too_many_changes",
    situation: "One patch adds a file of 801 lines (the default limit is 800 changed lines).",
    patch: [
      "*** Begin Patch",
      "*** Add File: src/table.ts",
      ...Array.from({ length: 801 }, (_, i) => `+export const row${i} = ${i};`),
      "*** End Patch",
    ],
  },
  {
    code: "io_error",
    situation:
      "The disk refused the write: here the new file's folder is an existing file (a read-only folder or a full disk fail the same way).",
    patch: [
      "*** Begin Patch",
      "*** Add File: src/cart.ts/extra.ts",
      "+export {};",
      "*** End Patch",
    ],
  },
];

/** A long patch is shown by its head and tail. */
function showPatch(lines: string[]): string {
  if (lines.length <= 12) return lines.join("\n");
  return [...lines.slice(0, 5), `... (${lines.length - 8} more lines)`, ...lines.slice(-3)].join(
    "\n",
  );
}

/** The failure a scenario produces; throws when it is not the expected code. */
async function runScenario(scenario: Scenario): Promise<{ message: string; hint: string }> {
  const { dir, outside } = makeWorkspace();
  try {
    const expected = scenario.expect ?? {};
    const result = await applyPatch(scenario.patch.join("\n") + "\n", {
      cwd: dir,
      expect: (path) => expected[path],
      requireRead: scenario.requireRead === true,
    });
    const failure = result.failures[0];
    if (failure === undefined || failure.code !== scenario.code) {
      throw new Error(
        `expected ${scenario.code} for "${scenario.situation}", got ${JSON.stringify(result)}`,
      );
    }
    return {
      message: readablePaths(failure.message, dir, outside),
      hint: readablePaths(failure.hint, dir, outside),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
}

/** HTML for a message: escaped, line breaks and indentation kept (the page's HTML collapses whitespace). */
function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .split("\n")
    .map((line) => line.replace(/^ +/, (spaces) => "&nbsp;".repeat(spaces.length)))
    .join("<br>");
}

/** The patch as a code block; message and hint as wrapped prose (HTML, so no Markdown or Vue syntax applies). */
async function renderScenario(scenario: Scenario): Promise<string> {
  const { message, hint } = await runScenario(scenario);
  return [
    `**${scenario.situation}**`,
    "",
    "```text",
    showPatch(scenario.patch),
    "```",
    "",
    '<div class="patch-failure" v-pre>',
    `<p><span class="label">message</span>${escapeHtml(message)}</p>`,
    `<p><span class="label">hint</span>${escapeHtml(hint)}</p>`,
    "</div>",
    "",
  ].join("\n");
}

/** Markdown: a heading per code (in the order of SCENARIOS), then each of its scenarios. */
export async function renderPatchErrors(): Promise<string> {
  const sections: string[] = [];
  for (const [i, scenario] of SCENARIOS.entries()) {
    if (SCENARIOS[i - 1]?.code !== scenario.code) sections.push(`### \`${scenario.code}\`\n`);
    sections.push(await renderScenario(scenario));
  }
  return sections.join("\n");
}

export async function capturePatchErrors(file = PATCH_ERRORS_FILE): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, await renderPatchErrors());
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await capturePatchErrors();
  console.log(`wrote ${PATCH_ERRORS_FILE.slice(ROOT.length + 1)}`);
}
