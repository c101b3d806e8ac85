import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import type { Role } from '../../src/core/permissions.js';
import type { TestApp } from './app.js';
import { openPage, screenshot } from './browser.js';
import { signedInPerson } from './people.js';

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const VIEWPORTS = [
  { name: 'desktop', viewport: DESKTOP },
  { name: 'phone', viewport: PHONE },
] as const;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * A browser page whose test fails on any script error, CSP refusal or browser dialog (an
 * injected alert()), as the owner pages' tests do.
 */
export async function watchedPage(t: TestContext, viewport: { width: number; height: number } = DESKTOP, timezoneId?: string): Promise<Page> {
  const page = await openPage(t, { viewport, timezoneId });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  t.after(() => assert.deepEqual(problems, []));
  return page;
}

/**
 * A person of `role` in the account (a new business account unless given), signed in, and a
 * browser page carrying their session, not yet navigated.
 */
export async function signedInDashboard(
  t: TestContext,
  app: TestApp,
  options: { role?: Role; accountId?: number; viewport?: { width: number; height: number }; timezoneId?: string } = {},
) {
  const accountId = options.accountId ?? (await app.createAccount()).accountId;
  const person = await signedInPerson(app, accountId, options.role ?? 'owner');
  const page = await watchedPage(t, options.viewport, options.timezoneId);
  await page.context().addCookies([{ name: 'lv_session', value: person.client.sessionId!, url: app.url }]);
  return { ...person, accountId, page };
}

/**
 * Playwright's clock in the page, still running in real time, so that `refreshNow` can bring a
 * screen's own refresh at once instead of after its interval. Before the page loads.
 */
export async function installClock(page: Page): Promise<void> {
  await page.clock.install();
}

/** Moves the page's clock past the longest refresh interval of any screen (30 s): each refreshes once, without a reload. */
export async function refreshNow(page: Page): Promise<void> {
  await page.clock.fastForward(30_000);
}

/** Opens a dashboard path and waits until its screen's heading is there. */
export async function openScreen(page: Page, app: TestApp, path: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${app.url}${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: 20_000 });
}

/** A section of Settings, once its data has arrived. */
export async function openSection(page: Page, app: TestApp, section: string): Promise<void> {
  await openScreen(page, app, `/app/settings/${section}`, 'Settings');
  await page.locator('.skeleton').first().waitFor({ state: 'detached' });
}

/** axe-core on the page as it is: no serious or critical violation (the message lists them). */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  // Through the DevTools protocol, which the page's CSP does not govern (it would refuse an inline script);
  // once per document: parsing axe costs more than most of its runs.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    type Violation = { id: string; impact: string; help: string; nodes: Array<{ target: string[] }> };
    const axe = (globalThis as unknown as { axe: { run: (options: object) => Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) => `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  });
  assert.deepEqual(violations, [], `axe on ${where}`);
}

/** A screenshot kept as a test artefact and the accessibility check, for one state of one screen. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  await screenshot(page, `dashboard-${name}`);
  await assertAccessible(page, name);
}
