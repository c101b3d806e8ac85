import fs from 'node:fs/promises';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

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
async function launchChromium(): Promise<Browser> {
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
export async function openPage(t: TestContext, options: { viewport?: { width: number; height: number } } = {}): Promise<Page> {
  shared ??= launchChromium();
  const browser = await shared;
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1024, height: 800 } });
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
