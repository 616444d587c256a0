// The workspace the search benchmark searches: `files` small TypeScript-like files in nested
// folders, the same bytes every time, generated once into the temp folder and reused by later runs.
// No .gitignore and no hidden files, so ripgrep and our walker see exactly the same files.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The string the benchmark searches for: in one file of every 250, under search_text's 100-match cap. */
export const NEEDLE = "needle_marker";
const NEEDLE_EVERY = 250;
const FILES_PER_FOLDER = 50;
const FOLDERS_PER_PACKAGE = 20;
const VERSION = 1; // bump when the generated content changes

export interface SearchTree {
  root: string;
  files: number;
  /** How many lines contain NEEDLE. */
  needles: number;
}

export function searchTree(files: number): SearchTree {
  const home = join(tmpdir(), `agent-bench-tree-v${VERSION}-${files}`);
  const root = join(home, "tree");
  const complete = join(home, "complete");
  const needles = Math.ceil((files - 7) / NEEDLE_EVERY);
  if (existsSync(complete)) return { root, files, needles };
  rmSync(home, { recursive: true, force: true });
  for (let i = 0; i < files; i++) {
    const folder = Math.floor(i / FILES_PER_FOLDER);
    const dir = join(
      root,
      `pkg-${Math.floor(folder / FOLDERS_PER_PACKAGE)}`,
      "src",
      `mod-${folder % FOLDERS_PER_PACKAGE}`,
    );
    if (i % FILES_PER_FOLDER === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file-${i % FILES_PER_FOLDER}.ts`), fileText(i));
  }
  writeFileSync(complete, "");
  return { root, files, needles };
}

/** 14 to 47 lines of plausible code (1.4 KB on average); file i % 250 === 7 has the needle once. */
function fileText(i: number): string {
  const lines = [
    `// generated file ${i}`,
    `import { helper } from "../shared/helper-${i % 97}.ts";`,
  ];
  const count = 4 + ((i * 7919) % 12);
  for (let j = 0; j < count; j++) {
    lines.push(
      `export function compute${i}_${j}(value: number): number {`,
      `  return helper(value * ${j + 1}) + ${(i * 31 + j * 17) % 1000}; // step ${j} of item ${i}`,
      "}",
    );
  }
  if (i % NEEDLE_EVERY === 7) lines.splice(lines.length >> 1, 0, `const marker = "${NEEDLE}";`);
  return lines.join("\n") + "\n";
}
