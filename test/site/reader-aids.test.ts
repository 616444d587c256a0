// What a chapter page offers a reader besides the lesson, seen in Chrome or Chromium: its reading
// and build times and the files it touches under the title, an outline beside the text on a
// desktop, the code archive, diagrams a phone can read, and the chapter's file browser with the
// lines the chapter changed marked. Screenshots land in test-results/screenshots/.
//
// Like browser.test.ts, it builds the site unless the last build read the same files, and it is
// skipped, with the reason printed, when there is no browser, except in CI (CI=true).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { findBrowser } from "../support/find-browser.ts";
import { DIST_DIR, ensureSiteBuilt, SITE_BUILD_TIMEOUT_MS } from "./site-build.ts";
import { serveStatic, type StaticServer } from "./static-server.ts";
import { ROOT } from "./site-pages.ts";

const BROWSER = findBrowser();
const NO_BROWSER = BROWSER.found ? "" : `${BROWSER.reason}; to run them, ${BROWSER.howToGetOne}`;
const IN_CI = process.env.CI === "true";
const SCREENSHOTS = join(ROOT, "test-results", "screenshots");
const TIMEOUT = 120_000;
const CHAPTER = "/chapters/11-hash-guard";

let server: StaticServer | undefined;
let browser: Browser | undefined;

beforeEach((context) => {
  if (!BROWSER.found && !IN_CI) {
    console.log(`reader-aids.test.ts skipped: ${NO_BROWSER}`);
    context.skip(NO_BROWSER);
  }
});

beforeAll(async () => {
  if (!BROWSER.found) return;
  await ensureSiteBuilt();
  browser = await chromium.launch({
    executablePath: BROWSER.path,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  server = await serveStatic(DIST_DIR);
  mkdirSync(SCREENSHOTS, { recursive: true });
}, SITE_BUILD_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(urlPath: string, width: number, height = 900): Promise<Page> {
  if (browser === undefined || server === undefined) throw new Error(NO_BROWSER || "no browser");
  const context = await browser.newContext({ viewport: { width, height } });
  context.setDefaultTimeout(TIMEOUT);
  const page = await context.newPage();
  const response = await page.goto(server.url + urlPath, { waitUntil: "networkidle" });
  expect(response?.status()).toBe(200);
  return page;
}

// PNG: the pictures are few, and a person looks at them.
const shot = (name: string) => ({ path: join(SCREENSHOTS, name), timeout: TIMEOUT });

describe("what a chapter page tells its reader", () => {
  test(
    "at 1280 px: its times, the files it touches, the archive, its file browser and a visible outline",
    async () => {
      const page = await open(CHAPTER, 1280);
      const facts = page.locator(".chapter-facts");
      expect(await facts.isVisible()).toBe(true);
      expect(await facts.locator(".read-time").textContent()).toMatch(/^Reading: \d+ min$/);
      expect(await facts.locator(".build-time").textContent()).toMatch(
        /^Building along: about (\d+ min|\d+ h( \d+ min)?)$/,
      );
      // Under the title, before the first section.
      const order = await page.evaluate<boolean>(
        "(() => { const f = document.querySelector('.chapter-facts'); const h1 = document.querySelector('.vp-doc h1'); const h2 = document.querySelector('.vp-doc h2'); return !!(h1.compareDocumentPosition(f) & 4) && !!(f.compareDocumentPosition(h2) & 4); })()",
      );
      expect(order).toBe(true);
      expect(await facts.locator("p.chapter-touches").textContent()).toContain(
        "src/patch/hash-guard.ts",
      );

      // The archive: linked, and served.
      const archive = facts.locator("a.archive-link").first();
      expect(await archive.getAttribute("href")).toBe("/build-a-coding-agent.tar.gz");
      const download = await page.request.get(server!.url + "/build-a-coding-agent.tar.gz");
      expect(download.status()).toBe(200);
      expect((await download.body()).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      expect(await facts.locator("a.browse-link").getAttribute("href")).toBe("/code/11-hash-guard");

      // The outline beside the text, with the page's sections in it.
      const outline = page.locator(".VPDocAsideOutline");
      expect(await outline.isVisible()).toBe(true);
      expect(await outline.locator("a.outline-link").count()).toBeGreaterThan(5);
      expect(await outline.textContent()).toContain("Why this chapter exists");
      await page.screenshot(shot("site-chapter-1280.png"));
      await page.context().close();
    },
    TIMEOUT,
  );

  test(
    "at 390 px: its times, and a diagram that scrolls inside its frame and opens full size",
    async () => {
      const page = await open(CHAPTER.replace("11-hash-guard", "14-run-ledger"), 390, 844);
      expect(await page.locator(".chapter-facts .read-time").isVisible()).toBe(true);
      // The files it touches are folded on a phone: one line, opened by a tap.
      expect(await page.locator(".chapter-facts p.touches-wide").isVisible()).toBe(false);
      await page.locator(".chapter-facts details.touches-narrow > summary").click();
      expect(
        await page
          .locator(".chapter-facts details.touches-narrow a", { hasText: "run-ledger.ts" })
          .isVisible(),
      ).toBe(true);
      await page.locator(".chapter-facts details.touches-narrow > summary").click();
      await page.screenshot(shot("site-chapter-390.png"));
      const diagram = page.locator("a.diagram").first();
      await diagram.scrollIntoViewIfNeeded();
      // Wider than the screen, so it scrolls inside its frame instead of shrinking to 342 px.
      // Strings, not functions: the tests compile without DOM types.
      const frame = "document.querySelector('a.diagram')";
      const sizes = await page.evaluate<{ scroll: number; client: number; image: number }>(
        `(() => { const f = ${frame}; return { scroll: f.scrollWidth, client: f.clientWidth, image: f.querySelector('img').getBoundingClientRect().width }; })()`,
      );
      expect(sizes.image).toBeGreaterThanOrEqual(700);
      expect(sizes.scroll).toBeGreaterThan(sizes.client);
      await diagram.screenshot(shot("site-diagram-390.png"));
      await page.evaluate(`${frame}.scrollBy(200, 0)`);
      await page.waitForFunction(`${frame}.scrollLeft > 0`);
      // The page itself does not scroll sideways.
      expect(
        await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth"),
      ).toBeLessThanOrEqual(0);
      // A tap opens the SVG itself, full size, in a new tab.
      const href = await diagram.getAttribute("href");
      expect(href).toMatch(/^\/diagrams\/.+\.svg$/);
      expect(await diagram.getAttribute("target")).toBe("_blank");
      const [opened] = await Promise.all([page.context().waitForEvent("page"), diagram.click()]);
      await opened.waitForLoadState();
      expect(opened.url()).toBe(server!.url + href);
      expect(await opened.locator("svg title").first().textContent()).not.toBe("");
      await page.context().close();
    },
    TIMEOUT,
  );

  test(
    "the chapter's file browser shows a file highlighted, with the chapter's changed lines marked",
    async () => {
      const page = await open("/code/11-hash-guard#src/patch/hash-guard.ts", 1280);
      const tree = page.locator(".file-tree");
      expect(await tree.locator("a").count()).toBeGreaterThan(20);
      expect(await tree.locator("a.status-added", { hasText: "hash-guard.ts" }).count()).toBe(1);
      const code = page.locator(".file-code pre.has-diff");
      await code.waitFor({ state: "visible" });
      expect(await page.locator(".file-name").textContent()).toContain("src/patch/hash-guard.ts");
      // Highlighted by Shiki (coloured spans), every line of this new file marked as added.
      const lines = page.locator(".file-code span.line");
      const marked = page.locator(".file-code span.line.diff.add");
      expect(await marked.count()).toBeGreaterThan(10);
      expect(await marked.count()).toBe(await lines.count());
      expect(await page.locator(".file-code span.line span[style]").count()).toBeGreaterThan(10);
      await page.screenshot(shot("site-file-tree-1280.png"));

      // A changed file: some lines marked, not all.
      await tree.locator("a", { hasText: /^main\.ts/ }).click();
      await page.waitForFunction(
        "document.querySelector('.file-name')?.textContent?.includes('src/main.ts')",
      );
      // The fragment arrives after the name changes: wait for a file with unmarked lines.
      await page.waitForFunction(
        "(() => { const n = document.querySelectorAll('.file-code span.line.diff.add').length; return n > 0 && n < document.querySelectorAll('.file-code span.line').length; })()",
      );
      const changed = await page.locator(".file-code span.line.diff.add").count();
      expect(changed).toBeGreaterThan(0);
      expect(changed).toBeLessThan(await page.locator(".file-code span.line").count());
      await page.context().close();
    },
    TIMEOUT,
  );
});
