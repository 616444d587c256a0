import { chromium } from "playwright-core";
import { serveStatic } from "/work/main/test/site/static-server.ts";
const server = await serveStatic("/work/main/docs/.vitepress/dist");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: Number(process.argv[3] ?? 1280), height: 900 } });
await page.goto(`${server.url}${process.argv[2]}`);
await page.waitForLoadState("networkidle");
const sel = process.argv[4];
if (sel) { await page.locator(sel).first().scrollIntoViewIfNeeded(); }
const wide = await page.evaluate(() => [...document.querySelectorAll('div[class*="language-"] pre, pre')].map(p => p.scrollWidth - p.clientWidth).filter(d => d > 0).length);
console.log("scrolling blocks:", wide);
await page.screenshot({ path: process.argv[5] ?? "/tmp/shot.png" });
await browser.close(); await server.close();
