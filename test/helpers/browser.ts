import fs from 'node:fs/promises';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let shared: Promise<Browser> | undefined;

/** Debian's Chromium, headless; one per test file, closed when the file's tests end. */
export async function openPage(t: TestContext, options: { viewport?: { width: number; height: number } } = {}): Promise<Page> {
  shared ??= chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
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
