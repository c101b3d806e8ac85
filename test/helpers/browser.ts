import fs from 'node:fs/promises';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sleep } from './wait.js';

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results');
const SYSTEM_CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HEADLESS_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Debian's Chromium where it is installed (CHROMIUM_PATH overrides), else the one the npm
 * package @sparticuz/chromium carries, unpacked to /tmp: `npm install && npm test` needs no apt.
 */
export async function launchChromium(): Promise<Browser> {
  const installed = await fs.access(SYSTEM_CHROMIUM).then(
    () => true,
    () => false,
  );
  if (installed) return chromium.launch({ executablePath: SYSTEM_CHROMIUM, headless: true, args: HEADLESS_ARGS });
  const { default: packaged } = await import('@sparticuz/chromium');
  // Its --single-process (made for serverless) ends the browser when a test's context closes.
  const args = packaged.args.filter((arg) => arg !== '--single-process');
  return chromium.launch({ executablePath: await packaged.executablePath(), headless: true, args: [...args, ...HEADLESS_ARGS] });
}

let shared: Promise<Browser> | undefined;

/** A headless Chromium page; one browser per test file, closed when the file's tests end. */
export async function openPage(t: TestContext, options: { viewport?: { width: number; height: number }; timezoneId?: string } = {}): Promise<Page> {
  shared ??= launchChromium();
  const browser = await shared;
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1024, height: 800 }, timezoneId: options.timezoneId });
  t.after(() => context.close());
  return context.newPage();
}

export async function closeBrowser(): Promise<void> {
  if (shared) await (await shared).close();
  shared = undefined;
}

/** Keeps a picture of a state under test-results/ (gitignored) for a human to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await fs.mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Waits until the paged viewer shows `pages` pages of a ready document and the first image has loaded. */
export async function waitForPages(page: Page, pages: number, timeout = 60_000): Promise<void> {
  await page.waitForSelector(`#paged-viewer[data-status="ready"][data-rendered="${pages}"]`, { timeout });
  // A function, not a string: the viewer's CSP forbids eval.
  await page.locator('.viewer-page-image').first().waitFor({ timeout });
  await until(
    () =>
      page
        .locator('.viewer-page-image')
        .first()
        .evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0),
    timeout,
  );
  if ((await page.locator('.viewer-page').count()) !== pages) throw new Error(`expected ${pages} pages in the viewer`);
}

/** Polls `check` every 50 ms until it holds, for at most `timeout` ms. */
export async function until(check: () => Promise<boolean>, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeout} ms: ${check.toString()}`);
    await sleep(50);
  }
}
