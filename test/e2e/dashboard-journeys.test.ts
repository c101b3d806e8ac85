// The dashboard's journeys from issue 21, each at 1280×800 and 390×844: what a person does
// from the first run to the analytics of a view, across screens, through the real server.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, openScreen, signedInDashboard, VIEWPORTS, watchedPage } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';
import { TEST_PASSWORD } from '../helpers/people.js';
import { startSmtp, type ReceivedMail } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';

after(closeBrowser);

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

for (const { name: width, viewport } of VIEWPORTS) {
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
    // The badge is refreshed every 30 s; a reload shows it at once.
    await page.reload();
    const menu = page.getByRole('button', { name: 'Menu' });
    if (await menu.isVisible()) await menu.click();
    const requests = nav.getByRole('link', { name: /^Requests\s*2 pending$/ });
    await requests.waitFor();
    await requests.click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await checkScreen(page, `journey-requests-${width}`);

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
    await page.getByLabel('Brand colour (hex code)').fill('#0a7d3b');
    assert.notEqual(await colourOf(preview), before);
    assert.equal(await colourOf(preview), 'rgb(10, 125, 59)', 'the preview follows before anything is saved');
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
