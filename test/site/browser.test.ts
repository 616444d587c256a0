// Builds the site, serves it on 127.0.0.1 and visits every page in Debian's chromium: no console
// errors, no request leaving the machine, and on each chapter page the imported code and the diff.
// Screenshots land in test-results/screenshots/ for a human to look at.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { serveStatic, type StaticServer } from "./static-server.ts";
import { DOCS_DIR, ROOT, sitePages } from "./site-pages.ts";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = join(ROOT, "test-results", "screenshots");
const pages = sitePages();
const chapterPages = pages.filter((page) => page.source.startsWith("chapters/"));

let server: StaticServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the site test drives Debian's chromium. Run \`bash scripts/ensure-chromium.sh\` (as root) and try again.`,
    );
  }
  await promisify(execFile)("pnpm", ["docs:build"], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  server = await serveStatic(join(DOCS_DIR, ".vitepress", "dist"));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Visit {
  page: Page;
  problems: string[];
}

/** Opens a page and records what must never happen: console errors, failed or outside requests. */
async function visit(urlPath: string, width = 1280): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
  page.on("request", (request) => {
    if (!request.url().startsWith(server.url) && !request.url().startsWith("data:")) {
      problems.push(`request leaves the machine: ${request.url()}`);
    }
  });
  const response = await page.goto(server.url + urlPath, { waitUntil: "networkidle" });
  if (response?.status() !== 200) problems.push(`HTTP ${response?.status()} for ${urlPath}`);
  return { page, problems };
}

describe("the built site", () => {
  test("has a chapter page for the first chapter at least", () => {
    expect(chapterPages.map((page) => page.source)).toContain("chapters/01-model-client.md");
  });

  test.each(pages)("$urlPath loads without errors", async ({ urlPath }) => {
    const { page, problems } = await visit(urlPath);
    expect(await page.locator("h1").first().isVisible()).toBe(true);
    expect(await page.content()).not.toContain("Code snippet path not found");
    if (urlPath === "/") await page.screenshot({ path: join(SCREENSHOTS, "home.png") });
    expect(problems).toEqual([]);
    await page.close();
  });

  test.each(chapterPages)(
    "$urlPath shows the chapter's code and its diff",
    async ({ source, urlPath }) => {
      const { page, problems } = await visit(urlPath);
      const code = page.locator("div.language-ts pre");
      expect(await code.count()).toBeGreaterThan(0);
      expect(await code.first().textContent()).toMatch(/\b(export|import|function|const)\b/);
      const diff = page.locator("div.language-diff pre");
      expect(await diff.count()).toBeGreaterThan(0);
      expect(await diff.first().textContent()).toMatch(/^\+\+\+ /m);
      const output = page.locator("div.language-text pre");
      expect(await output.count()).toBeGreaterThan(0);
      await page.screenshot({
        path: join(SCREENSHOTS, source.replace(/^chapters\/|\.md$/g, "") + ".png"),
        fullPage: true,
      });
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  test("the home page fits a phone", async () => {
    const { page, problems } = await visit("/", 390);
    // A string, not a function: the test compiles without DOM types.
    const overflow = await page.evaluate<number>(
      "document.documentElement.scrollWidth - window.innerWidth",
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SCREENSHOTS, "home-phone.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
