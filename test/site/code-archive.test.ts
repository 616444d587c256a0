// The code, from the site: `docs:build` puts the repository as committed into the built site as
// build-a-coding-agent.tar.gz (and .zip), which the home page and every chapter page link to.
// The archive unpacks into one folder, holds every chapter's src/, and nothing installed or built.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { archiveFormats, inGitCheckout } from "../../docs/.vitepress/code-archive.ts";
import { DIST_DIR, ensureSiteBuilt, SITE_BUILD_TIMEOUT_MS } from "./site-build.ts";
import { ROOT } from "./site-pages.ts";
import { listChapters } from "../../scripts/lib/chapters.ts";

const TAR = join(DIST_DIR, "build-a-coding-agent.tar.gz");
const ZIP = join(DIST_DIR, "build-a-coding-agent.zip");
let unpacked = "";

beforeAll(async () => {
  await ensureSiteBuilt();
  unpacked = mkdtempSync(join(tmpdir(), "code-archive-"));
  execFileSync("tar", ["-xzf", TAR, "-C", unpacked]);
}, SITE_BUILD_TIMEOUT_MS);

afterAll(() => {
  if (unpacked) rmSync(unpacked, { recursive: true, force: true });
});

/** Every file under `dir`, as paths relative to it. */
function allPaths(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) =>
    statSync(join(dir, name)).isFile(),
  );
}

/** The files under `dir` as committed; in an unpacked archive (no git), as on the disk. */
function committedFiles(dir: string): string[] {
  const files = inGitCheckout()
    ? execFileSync("git", ["ls-files", dir], { cwd: ROOT, encoding: "utf8" }).split("\n")
    : allPaths(join(ROOT, dir)).map((name) => `${dir}/${name}`);
  return files.filter(Boolean).sort();
}

describe("the code archive the site offers", () => {
  test("unpacks into build-a-coding-agent/, with the README's commands' package.json", () => {
    expect(readdirSync(unpacked)).toEqual(["build-a-coding-agent"]);
    const root = join(unpacked, "build-a-coding-agent");
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(["start", "test"]));
    expect(existsSync(join(root, "pnpm-lock.yaml"))).toBe(true);
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain("pnpm install && pnpm start");
  });

  test("holds no node_modules, no build output and no .env", () => {
    const paths = allPaths(join(unpacked, "build-a-coding-agent"));
    expect(paths.filter((path) => /(^|\/)node_modules(\/|$)/.test(path))).toEqual([]);
    expect(paths.filter((path) => path.startsWith("docs/.vitepress/dist"))).toEqual([]);
    expect(paths.filter((path) => /(^|\/)\.env$/.test(path))).toEqual([]);
  });

  test("holds every chapter's src/, file for file as committed", () => {
    // listChapters, not the folder: a checkout that pulled a renumbering keeps old folders that
    // hold only node_modules, and they are no chapters.
    const chapters = listChapters().map((chapter) => chapter.slug);
    expect(chapters.length).toBeGreaterThanOrEqual(27);
    for (const slug of chapters) {
      const committed = committedFiles(`chapters/${slug}/src`);
      const packed = allPaths(join(unpacked, "build-a-coding-agent", "chapters", slug, "src"))
        .map((name) => `chapters/${slug}/src/${name}`)
        .sort();
      expect(packed, slug).toEqual(committed);
    }
  });

  // Built from an unpacked archive there is no git to write a .zip (code-archive.ts).
  test.runIf(archiveFormats().includes("zip"))("comes as a .zip too", () => {
    expect(readFileSync(ZIP).subarray(0, 2).toString("latin1")).toBe("PK");
  });
});
