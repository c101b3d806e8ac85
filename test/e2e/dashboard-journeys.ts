// The dashboard's journeys from issue 21: what a person does from the first run to the analytics
// of a view, across screens, through the real server. Each width runs them in a test file of its
// own (dashboard-journeys-desktop and -phone), so the two run side by side.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { openPage, until } from '../helpers/browser.js';
import { checkScreen, installClock, openScreen, refreshNow, signedInDashboard, VIEWPORTS, watchedPage } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';
import { TEST_PASSWORD } from '../helpers/people.js';
import { otpCodeIn, startSmtp, type ReceivedMail } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';

/** The path and query of the link in a mail (the test server's PUBLIC_URL is not where it listens). */
function linkIn(mail: ReceivedMail, path: RegExp): string {
  const match = new RegExp(`https?://[^/\\s]+(${path.source})`).exec(mail.text);
  if (!match) throw new Error(`no ${path} link in: ${mail.text}`);
  return match[1]!;
}

/** Opens a screen from the main navigation, as a person would (through the menu on a phone). */
async function navigate(page: Page, label: string, heading: string | RegExp): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

async function settingsSection(page: Page, section: string): Promise<void> {
  await navigate(page, 'Settings', 'Settings');
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: section }).click();
}

/** A visitor asks to open a link that needs approval, as the viewer's form does. */
async function requestAccess(app: { url: string }, linkId: string, email: string): Promise<void> {
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.post(`/v/${linkId}/access`, { email })).status, 303);
}

/** Every journey at one of the dashboard's two widths. */
export function journeysAt({ name: width, viewport }: (typeof VIEWPORTS)[number]): void {
  test(`journey at ${width} width: first run, sign in, upload two files, protect one, copy its link, a visitor's view in its analytics`, async (t) => {
    const smtp = await startSmtp(t);
    const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
    const page = await watchedPage(t, viewport);
    await installClock(page);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);

    // First run: the setup link the server prints makes the owner, who lands in the dashboard.
    const setup = new URL(await app.runtime.services.auth.setupLink());
    await page.goto(`${app.url}${setup.pathname}${setup.search}`);
    await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await page.getByLabel('Email', { exact: true }).fill('ada@analytical.example');
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByLabel('Company name', { exact: true }).fill('Analytical Engines');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await page.getByRole('heading', { name: 'Upload your first file' }).waitFor();
    await checkScreen(page, `journey-first-run-${width}`);
    await page.getByRole('button', { name: 'Account: Ada Lovelace' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${app.url}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill('ada@analytical.example');
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();

    // Two files dropped on the upload zone, over a slow connection so that progress shows.
    await page.getByRole('link', { name: 'Upload', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Upload files' }).waitFor();
    const network = await page.context().newCDPSession(page);
    await network.send('Network.enable');
    await network.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 400_000 });
    const files = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['a'.repeat(500000)], 'Board deck.txt', { type: 'text/plain' }));
      transfer.items.add(new File(['b'.repeat(500000)], 'Budget.txt', { type: 'text/plain' }));
      return transfer;
    })()`);
    await page.locator('.documents-dropzone').dispatchEvent('drop', { dataTransfer: files });
    await page.getByRole('progressbar', { name: 'Upload of Board deck.txt' }).waitFor();
    await page.getByRole('progressbar', { name: 'Upload of Budget.txt' }).waitFor();
    for (const name of ['Board deck.txt', 'Budget.txt']) {
      await page.locator('.documents-upload').filter({ hasText: name }).getByText('Uploaded', { exact: true }).waitFor({ timeout: 30_000 });
    }
    await network.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

    // Password, e-mail code and expiry on the deck.
    await page
      .locator('.documents-upload')
      .filter({ hasText: 'Board deck.txt' })
      .getByRole('link', { name: /Settings/ })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Board deck.txt' }).waitFor();
    const password = page.getByRole('region', { name: 'Password' });
    await password.getByLabel('Password', { exact: true }).fill('open sesame');
    await password.getByRole('button', { name: 'Save password' }).click();
    await password.getByLabel('New password').waitFor();
    const visitors = page.getByRole('region', { name: 'Visitors', exact: true });
    await visitors.getByLabel('Send an e-mail code').check();
    await visitors.getByLabel('Allowed domains').fill('example.org');
    await visitors.getByRole('button', { name: 'Save visitors' }).click();
    // Each section starts again from the saved link: the next is filled once this one's save is shown.
    const chips = page.locator('.link-summary .link-chips');
    await chips.getByText('E-mail code').waitFor();
    const access = page.getByRole('region', { name: 'Access' });
    await access.getByLabel('Stops working at a set time').check();
    await access.getByLabel('Expires at').fill('2031-03-14T15:30');
    await access.getByRole('button', { name: 'Save access' }).click();
    for (const chip of ['Password', 'E-mail code', 'Expires Mar 14, 2031']) await chips.getByText(chip).waitFor();
    await checkScreen(page, `journey-settings-${width}`);

    // Its link, copied from the list, opened by a visitor in a browser of their own.
    await navigate(page, 'Documents', 'Documents');
    const row = page.locator('tbody tr, .documents-card').filter({ hasText: 'Board deck.txt' });
    for (const chip of ['Password', 'E-mail code']) await row.getByText(chip, { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Copy link' }).click();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    assert.match(copied, /\/v\/[0-9A-Za-z]+$/);

    // The owner watches the deck's analytics while a visitor opens the copied link in a browser of their own.
    const linkId = copied.slice(copied.lastIndexOf('/') + 1);
    await openScreen(page, app, `/app/documents/${linkId}/analytics`, 'Analytics: Board deck.txt');
    await page.getByText('No visitors yet').waitFor();
    const visitor = await openPage(t);
    await visitor.goto(copied.replace(/^https?:\/\/[^/]+/, app.url));
    await visitor.getByLabel('E-mail address').fill('dana@example.org');
    await visitor.keyboard.press('Enter');
    await visitor.getByLabel('Code').fill(otpCodeIn(await smtp.waitFor('dana@example.org')));
    await visitor.getByRole('button', { name: 'Continue' }).click();
    await visitor.getByLabel('Password').fill('open sesame');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.getByText('Board deck.txt').first().waitFor();
    // New views appear without a reload (the screen refreshes itself).
    await refreshNow(page);
    await page.getByText('dana@example.org').first().waitFor();
    await checkScreen(page, `journey-analytics-${width}`);
  });

  test(`journey at ${width} width: access requests are approved and denied from the navigation badge`, async (t) => {
    const app = await startApp(t);
    const { accountId, http } = await app.createAccount();
    const boardPack = await createLink(http, 'board pack', 'Board pack.txt', { requiresApproval: '1' });
    const { page } = await signedInDashboard(t, app, { accountId, viewport });
    await openScreen(page, app, '/app', 'Documents');
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.getByText('1 pending').count(), 0, 'no badge while nobody waits');

    await requestAccess(app, boardPack, 'carol@example.com');
    await requestAccess(app, boardPack, 'mallory@example.com');
    // The badge is refreshed every 30 s; a reload shows it at once. The menu is looked for once the
    // screen is drawn again: straight after the reload the shell is not there yet, Menu button included.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
    const menu = page.getByRole('button', { name: 'Menu' });
    if (await menu.isVisible()) await menu.click();
    const requests = nav.getByRole('link', { name: /^Requests\s*2 pending$/ });
    await requests.waitFor();
    await requests.click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await checkScreen(page, `journey-requests-${width}`);
    // Both only typed their address: the owner decides knowing it.
    for (const email of ['carol@example.com', 'mallory@example.com']) {
      assert.equal(await page.getByRole('row').filter({ hasText: email }).getByText('Not verified').count(), 1, email);
    }

    await page.getByRole('button', { name: 'Approve carol@example.com for Board pack.txt' }).click();
    await page.getByRole('status').getByText('carol@example.com may now open Board pack.txt.').waitFor();
    await page.getByRole('button', { name: 'Deny mallory@example.com for Board pack.txt' }).click();
    await page.getByRole('heading', { name: 'Nobody is waiting' }).waitFor();
    await nav.locator('.badge').waitFor({ state: 'detached' });
    const decided = (await http.get(`/api/links/${boardPack}/requests`)).body.requests as Array<{ email: string; status: string }>;
    assert.deepEqual(Object.fromEntries(decided.map((request) => [request.email, request.status])), {
      'carol@example.com': 'approved',
      'mallory@example.com': 'denied',
    });
    await checkScreen(page, `journey-requests-answered-${width}`);
  });

  test(`journey at ${width} width: an owner invites a member, who signs in and does not see API keys`, async (t) => {
    const smtp = await startSmtp(t);
    const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
    const owner = await signedInDashboard(t, app, { viewport });
    await openScreen(owner.page, app, '/app', 'Documents');
    await settingsSection(owner.page, 'Members');
    const email = `new.member-${randomBytes(3).toString('hex')}@example.com`;
    await owner.page.getByLabel('E-mail').fill(email);
    await owner.page.getByLabel('Role', { exact: true }).selectOption('member');
    await owner.page.getByRole('button', { name: 'Send invitation' }).click();
    await owner.page.getByRole('list', { name: 'Pending invitations' }).getByText(email).waitFor();
    await checkScreen(owner.page, `journey-invite-${width}`);

    const member = await watchedPage(t, viewport);
    await member.goto(app.url + linkIn(await smtp.waitFor(email), /\/invite\/[0-9A-Za-z]+/));
    await member.getByLabel('Name', { exact: true }).fill('Mina Member');
    await member.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await member.getByRole('button', { name: 'Accept invitation' }).click();
    await member.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
    await settingsSection(member, 'Profile');
    const sections = member.getByRole('navigation', { name: 'Settings sections' });
    assert.equal(await sections.getByRole('link', { name: 'API keys' }).count(), 0, 'a member is not shown API keys');
    assert.equal((await member.request.get(`${app.url}/api/api-keys`)).status(), 403, 'and the API refuses them anyway');
    await checkScreen(member, `journey-member-settings-${width}`);
  });

  test(`journey at ${width} width: the branding preview follows the colour picker, and the header wears the saved colour`, async (t) => {
    const app = await startApp(t);
    const { page } = await signedInDashboard(t, app, { viewport });
    await openScreen(page, app, '/app', 'Documents');
    await settingsSection(page, 'Branding');
    const preview = page.locator('.settings-preview-button');
    const colourOf = (locator: typeof preview) =>
      locator.evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).backgroundColor);
    const before = await colourOf(preview);
    assert.notEqual(before, 'rgb(10, 125, 59)');
    await page.getByLabel('Brand colour (hex code)').fill('#0a7d3b');
    // The preview follows before anything is saved, once Preact has rendered the input.
    await until(async () => (await colourOf(preview)) === 'rgb(10, 125, 59)');
    await checkScreen(page, `journey-branding-${width}`);
    const saved = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/branding' && response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Save branding' }).click();
    assert.equal((await saved).status(), 200);
    await page.reload();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    const header = await page
      .locator('.app-header')
      .evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).backgroundColor);
    assert.equal(header, 'rgb(10, 125, 59)');
  });
}
