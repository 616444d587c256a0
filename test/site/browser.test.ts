// Builds the site, serves it on 127.0.0.1 and visits every page in Chrome or Chromium: no console
// errors, no request leaving the machine, and on each chapter page the imported code, the
// highlighted diff and the captured run. Then what a reader does with it: search, dark mode, a
// phone. Screenshots land in test-results/screenshots/ for a human to look at.
//
// The test builds the site itself (about half a minute): that build is also CI's only dead-link
// check, and testing a stale docs/.vitepress/dist would prove nothing. It is skipped only when the
// last successful build read exactly the same files (./site-build.ts), never in a fresh clone.
//
// The browser is found by test/support/find-browser.ts, never downloaded. Without one, the tests
// are skipped with a note saying how to get one, except in CI (CI=true), where they fail: CI must
// never report a green run that did not look at the site.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { findBrowser } from "../support/find-browser.ts";
import { DIST_DIR, ensureSiteBuilt, SITE_BUILD_TIMEOUT_MS } from "./site-build.ts";
import { serveStatic, type StaticServer } from "./static-server.ts";
import { ROOT, sitePages } from "./site-pages.ts";

const BROWSER = findBrowser();
const NO_BROWSER = BROWSER.found ? "" : `${BROWSER.reason}; to run them, ${BROWSER.howToGetOne}`;
const IN_CI = process.env.CI === "true";
const SCREENSHOTS = join(ROOT, "test-results", "screenshots");
const PHONE = 390;
// Screenshots are for a person to look at, not checks. A whole chapter page is over 13,000 px
// tall, and shooting it cost as much CPU as loading and checking the page, so by default each
// test keeps the first screen, in CI too; `SCREENSHOTS=full` keeps whole pages. JPEG, because
// PNG took twice as long to encode; at this quality the text stays sharp enough to read.
const WHOLE_PAGES = process.env.SCREENSHOTS === "full";
// A chapter page shows every line its lesson changes: tens of thousands of pixels tall. Checking
// each code block, and shooting a whole page, takes longer than the default 30 s on a loaded
// two-core machine; Playwright's screenshot has its own 30 s limit, so it is raised here too.
const PAGE_TIMEOUT = 120_000;
const SHOT = { fullPage: WHOLE_PAGES, quality: 85, timeout: PAGE_TIMEOUT } as const;
const pages = sitePages();
const chapterPages = pages.filter((page) => page.source.startsWith("chapters/"));
const otherPages = pages.filter((page) => !chapterPages.includes(page));

let server: StaticServer | undefined;
let browser: Browser | undefined;
// One browser context per screen (width and colour scheme), as one reader's browser would be:
// pages share its cache of the site's hashed assets. A fresh context costs a third of a second.
const contexts = new Map<string, Promise<BrowserContext>>();

beforeEach((context) => {
  if (!BROWSER.found && !IN_CI) context.skip(NO_BROWSER);
});

beforeAll(async () => {
  if (!BROWSER.found) return;
  const launching = chromium.launch({
    executablePath: BROWSER.path,
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
  await ensureSiteBuilt().catch(async (error: unknown) => {
    await (await launching).close();
    throw error;
  });
  browser = await launching;
  server = await serveStatic(DIST_DIR);
  mkdirSync(SCREENSHOTS, { recursive: true });
}, SITE_BUILD_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Visit {
  page: Page;
  problems: string[];
}

interface VisitOptions {
  width?: number;
  colorScheme?: "light" | "dark";
}

/** Opens a page and records what must never happen: console errors, failed or outside requests. */
async function visit(
  urlPath: string,
  { width = 1280, colorScheme = "light" }: VisitOptions = {},
): Promise<Visit> {
  if (browser === undefined || server === undefined) {
    throw new Error(
      `${NO_BROWSER}. In CI (CI=true) these tests must run: .ci/run installs chromium.`,
    );
  }
  const url = server.url;
  const screen = `${width}-${colorScheme}`;
  if (!contexts.has(screen)) {
    const opening = browser.newContext({ viewport: { width, height: 900 }, colorScheme });
    // Every wait in a page (load, locator, screenshot) gets the same allowance as the test.
    const withTimeout = opening.then((context) => {
      context.setDefaultTimeout(PAGE_TIMEOUT);
      return context;
    });
    contexts.set(screen, withTimeout);
  }
  const page = await (await contexts.get(screen)!).newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
  page.on("request", (request) => {
    if (!request.url().startsWith(url) && !request.url().startsWith("data:")) {
      problems.push(`request leaves the machine: ${request.url()}`);
    }
  });
  const response = await page.goto(url + urlPath, { waitUntil: "networkidle" });
  if (response?.status() !== 200) problems.push(`HTTP ${response?.status()} for ${urlPath}`);
  return { page, problems };
}

/** How far the page itself scrolls sideways; code blocks scroll inside themselves instead. */
async function pageOverflow(page: Page): Promise<number> {
  // A string, not a function: the test compiles without DOM types.
  return page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
}

/** A page with its title, and no import VitePress could not resolve. */
async function expectRendered(page: Page): Promise<void> {
  expect(await page.locator("h1").first().isVisible()).toBe(true);
  expect(await page.content()).not.toContain("Code snippet path not found");
}

function screenshotName(source: string, suffix = ""): string {
  const name = source === "index.md" ? "home" : source.replace(/^chapters\/|\.md$/g, "");
  return join(SCREENSHOTS, `${name.replace(/\//g, "-")}${suffix}.jpg`);
}

// Pages are visited three at a time (maxConcurrency): each visit waits for the network to be idle
// for half a second, and those waits overlap.
describe.concurrent("the built site", () => {
  test("has a chapter page for the first chapter at least", () => {
    expect(chapterPages.map((page) => page.source)).toContain("chapters/01-model-client.md");
  });

  test.each(otherPages)("$urlPath loads without errors", async ({ source, urlPath }) => {
    const { page, problems } = await visit(urlPath);
    await expectRendered(page);
    await page.screenshot({ path: screenshotName(source), ...SHOT });
    expect(problems).toEqual([]);
    await page.close();
  });

  test.each(chapterPages)(
    "$urlPath shows placed snippets, its highlighted diff, the runs that break it, a recap, and no code that scrolls sideways",
    async ({ source, urlPath }) => {
      const { page, problems } = await visit(urlPath);
      await expectRendered(page);
      const code = page.locator("div.language-ts pre");
      expect(await code.count()).toBeGreaterThan(0);
      // Code, not only comments: a page may open with a file's header comment on its own.
      const texts = await code.allTextContents();
      expect(texts.some((text) => /\b(export|import|function|const)\b/.test(text))).toBe(true);

      // The diff is folded under "What this chapter adds": open it as a reader would.
      await page.locator("details:has(div.language-diff) > summary").first().click();
      const diff = page.locator("div.language-diff pre").first();
      expect(await diff.isVisible()).toBe(true);
      expect(await diff.textContent()).toMatch(/^\+\+\+ chapters\//m);
      // Highlighted: added, removed and header lines each get their own colour.
      const colours = await page.evaluate<number>(
        "new Set([...document.querySelectorAll('div.language-diff span.line > span')].map((s) => s.getAttribute('style'))).size",
      );
      expect(colours).toBeGreaterThanOrEqual(3);

      // Placed snippets: each names its file, and the diff ones colour added and removed lines.
      expect(await page.locator(".change .change-file").count()).toBeGreaterThan(2);
      // Their captions place code by name, never by a line number.
      const byNumber = await page.evaluate<string[]>(
        "[...document.querySelectorAll('.change-where')].map((e) => e.textContent ?? '').filter((t) => /\\blines?\\s+\\d/i.test(t))",
      );
      expect(byNumber, "captions that place code by a line number").toEqual([]);
      // A blank added line keeps a line's height, so its `+` sits beside it, not on the next line.
      const flat = await page.evaluate<number>(
        "[...document.querySelectorAll('.change .line.diff')].filter((l) => !l.closest('details:not([open])') && l.getBoundingClientRect().height < 1).length",
      );
      expect(flat, "marked lines with no height").toBe(0);

      // "Run it" and "Break it": captured runs, who-says-what coloured.
      const runs = page.locator(".transcript-run pre");
      expect(await runs.first().textContent()).toMatch(/^\$ .*pnpm chapter \d/);
      const breakIt = await page.evaluate<number>(
        "(() => { const h = document.getElementById('break-it'); let n = 0; for (let e = h?.nextElementSibling; e && e.tagName !== 'H2'; e = e.nextElementSibling) n += e.matches('.transcript-run') ? 1 : e.querySelectorAll('.transcript-run').length; return n; })()",
      );
      // Chapter 1 has no run on the chapter before (there is none; its page says so).
      const slug = source.replace(/^chapters\/|\.md$/g, "");
      expect(breakIt).toBe(slug === "01-model-client" ? 1 : 2);
      expect(await page.locator("h2#what-you-built").count()).toBe(1);

      // No code block scrolls sideways at 1280 px: with every fold open, each fits its column.
      await page.evaluate(
        "document.querySelectorAll('details').forEach((d) => { d.open = true; })",
      );
      const scrolling = await page.evaluate<string[]>(
        "[...document.querySelectorAll('.vp-doc pre')].filter((p) => p.scrollWidth > p.clientWidth + 1).map((p) => (p.textContent ?? '').split('\\n').sort((a, b) => b.length - a.length)[0].slice(0, 120))",
      );
      expect(scrolling, "code blocks that scroll sideways (their longest line)").toEqual([]);
      await page.evaluate(
        "document.querySelectorAll('details').forEach((d) => { d.open = false; })",
      );

      await page.locator("details:has(div.language-diff) > summary").first().click();
      await page.screenshot({ path: screenshotName(source), ...SHOT });
      expect(problems).toEqual([]);
      await page.close();
    },
    PAGE_TIMEOUT,
  );

  test.each(pages)(
    "$urlPath fits a phone",
    async ({ source, urlPath }) => {
      const { page, problems } = await visit(urlPath, { width: PHONE });
      // Unfolded, the widest blocks are on the page: they must scroll inside, not the page.
      await page.evaluate(
        "document.querySelectorAll('details').forEach((d) => { d.open = true; })",
      );
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      await page.evaluate(
        "document.querySelectorAll('details').forEach((d) => { d.open = false; })",
      );
      await page.screenshot({
        path: screenshotName(source, "-phone"),
        ...SHOT,
      });
      expect(problems).toEqual([]);
      await page.close();
    },
    PAGE_TIMEOUT,
  );

  test.each([pages.find((page) => page.source === "index.md")!, chapterPages.at(-1)!])(
    "$urlPath follows a dark system theme",
    async ({ source, urlPath }) => {
      const { page, problems } = await visit(urlPath, { colorScheme: "dark" });
      expect(await page.locator("html").getAttribute("class")).toMatch(/\bdark\b/);
      await page.screenshot({
        path: screenshotName(source, "-dark"),
        quality: SHOT.quality,
        timeout: PAGE_TIMEOUT,
      });
      expect(problems).toEqual([]);
      await page.close();
    },
  );

  test("local search finds a page by a word in it, and only then", async () => {
    const { page, problems } = await visit("/");
    await page.locator(".DocSearch-Button").click();
    const input = page.locator("#localsearch-input");
    await input.fill("ambiguous_context");
    const result = page.locator(".VPLocalSearchBox a.result").first();
    await result.waitFor({ state: "visible" });
    expect(await page.locator(".VPLocalSearchBox a.result").count()).toBeGreaterThan(0);
    await page.screenshot({
      path: join(SCREENSHOTS, "search.jpg"),
      quality: SHOT.quality,
      timeout: PAGE_TIMEOUT,
    });

    await input.fill("zqxjkv");
    await page.locator(".VPLocalSearchBox .no-results").waitFor({ state: "visible" });
    expect(await page.locator(".VPLocalSearchBox a.result").count()).toBe(0);

    await input.fill("ambiguous_context");
    await result.click();
    await page.waitForURL(/\/reference\/apply-patch|\/chapters\//);
    expect(problems).toEqual([]);
    await page.close();
  });
});
