import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { startApp, type TestApp } from '../helpers/app.js';
import { closeBrowser, openPage } from '../helpers/browser.js';
import { checkScreen, DESKTOP, installClock, openScreen, PHONE, refreshNow, signedInDashboard } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';
import { makePdf } from '../helpers/pdf.js';
import { linkTallies } from '../../src/modules/analytics/analytics.service.js';
import { startSmtp } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';
import { waitFor } from '../helpers/wait.js';

after(closeBrowser);

async function openSettings(page: Page, app: TestApp, id: string, name: string): Promise<void> {
  await openScreen(page, app, `/app/documents/${id}/settings`, name);
  await page.getByRole('region', { name: 'Access' }).waitFor();
}

/** The headline number under `label` on the analytics screen. */
const total = (page: Page, label: string) => page.locator('.link-total').filter({ hasText: label }).locator('dd');

test('link settings: password, e-mail code and expiry are saved and kept; the API error shows beside its field', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const id = await createLink(http, 'the plan', 'Plan.txt');
  const { page } = await signedInDashboard(t, app, { accountId, viewport: DESKTOP });
  await openSettings(page, app, id, 'Plan.txt');
  await checkScreen(page, 'link-settings-desktop');

  const password = page.getByRole('region', { name: 'Password' });
  await password.getByLabel('Password', { exact: true }).fill('open sesame');
  await password.getByRole('button', { name: 'Save password' }).click();
  await password.getByLabel('New password').waitFor();

  // The expiry is typed first and saved last: saving another section meanwhile must not wipe it.
  const access = page.getByRole('region', { name: 'Access' });
  await access.getByLabel('Stops working at a set time').check();
  await access.getByLabel('Expires at').fill('2031-03-14T15:30');

  const visitors = page.getByRole('region', { name: 'Visitors', exact: true });
  await visitors.getByLabel('Send an e-mail code').check();
  await visitors.getByLabel('Allowed domains').fill('example.org');
  await visitors.getByRole('button', { name: 'Save visitors' }).click();
  await page.locator('.link-chips', { hasText: 'E-mail code' }).waitFor();
  assert.equal(await access.getByLabel('Expires at').inputValue(), '2031-03-14T15:30', 'still what was typed');
  await access.getByRole('button', { name: 'Save access' }).click();
  // The chip already says "Expires" (the upload's default): wait for the new date, i.e. the save's answer.
  await page.locator('.link-chips', { hasText: 'Expires Mar 14, 2031' }).waitFor();

  await page.reload();
  await openSettings(page, app, id, 'Plan.txt');
  const chips = page.locator('.link-summary .link-chips');
  for (const chip of ['Password', 'E-mail code', 'Expires Mar 14, 2031']) await chips.getByText(chip).waitFor();
  assert.equal(await page.getByLabel('Expires at').inputValue(), '2031-03-14T15:30');
  assert.equal(await page.getByLabel('Send an e-mail code').isChecked(), true);
  assert.equal(await page.getByLabel('Allowed domains').inputValue(), 'example.org');

  const { settings } = (await http.get(`/api/links/${id}`)).body;
  assert.equal(settings.hasPassword, true);
  assert.equal(settings.requiresOtp, true);
  assert.deepEqual(settings.allowedDomains, ['example.org']);
  assert.equal(typeof settings.expiresAt, 'string');

  // A malformed address: the API's sentence beside the field that holds it.
  await visitors.getByLabel('Blocked e-mail addresses').fill('not an address');
  await visitors.getByRole('button', { name: 'Save visitors' }).click();
  const blocked = visitors.locator('.field', { has: page.getByLabel('Blocked e-mail addresses') });
  await blocked.locator('.field-error', { hasText: 'invalid e-mail address' }).waitFor();
  assert.equal(await visitors.getByLabel('Blocked e-mail addresses').getAttribute('aria-invalid'), 'true');
  assert.deepEqual((await http.get(`/api/links/${id}`)).body.settings.blockedEmails, []);

  // Removing the password, then the phone layout.
  await password.getByRole('button', { name: 'Remove password' }).click();
  await password.getByLabel('Password', { exact: true }).waitFor();
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.hasPassword, false);

  const phone = await signedInDashboard(t, app, { accountId, viewport: PHONE });
  await openSettings(phone.page, app, id, 'Plan.txt');
  await checkScreen(phone.page, 'link-settings-phone');
});

test('link settings: a save sends what was changed, so values the form shows rounded stay as they were; a saved password leaves its field', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const id = await createLink(http, 'the plan', 'Plan.txt');
  // Set through the API to what the form can only show rounded: a session of 90 s, an expiry with seconds.
  const set = await http.patch(`/api/links/${id}`, { viewSessionTtlSeconds: 90, expiresAt: '2031-01-01T12:00:45Z' });
  assert.equal(set.status, 200);
  const { page } = await signedInDashboard(t, app, { accountId, viewport: DESKTOP });
  await openSettings(page, app, id, 'Plan.txt');

  const access = page.getByRole('region', { name: 'Access' });
  await access.getByLabel('Most views').fill('5');
  await access.getByRole('button', { name: 'Save access' }).click();
  const settings = await waitFor(
    async () => (await http.get(`/api/links/${id}`)).body.settings,
    (current) => current.maxViews === 5,
  );
  assert.equal(settings.viewSessionTtlSeconds, 90, 'the session left alone');
  assert.equal(settings.expiresAt, '2031-01-01T12:00:45.000Z', 'the expiry left alone, to the second');

  await access.getByRole('button', { name: 'Save access' }).click();
  await page.getByText('Nothing to save: no setting here was changed').waitFor();

  const password = page.getByRole('region', { name: 'Password' });
  await password.getByLabel('Password', { exact: true }).fill('open sesame');
  await password.getByRole('button', { name: 'Save password' }).click();
  await password.getByLabel('New password').waitFor();
  assert.equal(await password.getByLabel('New password').inputValue(), '', 'the typed password is not left in the field');
});

test('link settings: an expired link opens with what brings it back, and a new expiry does', async (t) => {
  // The app's clock runs 3 hours behind until the link, made to last an hour, has expired.
  let behind = 3 * 3_600_000;
  const app = await startApp(t, { clock: () => Date.now() - behind });
  const { accountId, http } = await app.createAccount();
  const id = await createLink(http, 'the plan', 'Plan.txt', { expiration: '1h' });
  behind = 0;
  assert.equal((await http.get(`/api/links/${id}`)).status, 410, 'the API answers an expired link as the spec says');
  assert.equal((await http.get(`/api/links/${id}?includeExpired=true`)).status, 200, 'unless asked to include it');

  const { page } = await signedInDashboard(t, app, { accountId, viewport: DESKTOP });
  await openSettings(page, app, id, 'Plan.txt');
  await page
    .locator('.link-chips')
    .getByText(/^Expired /)
    .waitFor();
  const notice = page.getByRole('status').filter({ hasText: 'This link has expired' });
  await notice.waitFor();
  await checkScreen(page, 'link-settings-expired');

  const name = page.getByRole('region', { name: 'Name' });
  await name.getByLabel('Name', { exact: true }).fill('Plan, revived');
  await name.getByRole('button', { name: 'Save name' }).click();
  await name.getByRole('alert').waitFor();
  assert.match(await name.getByRole('alert').innerText(), /expired/i, 'another change waits, and says why');

  const access = page.getByRole('region', { name: 'Access' });
  await access.getByLabel('Expires at').fill('2031-03-14T15:30');
  await access.getByRole('button', { name: 'Save access' }).click();
  await page.locator('.link-chips', { hasText: 'Expires Mar 14, 2031' }).waitFor();
  await notice.waitFor({ state: 'detached' });
  assert.equal((await http.get(`/api/links/${id}`)).status, 200, 'the link is back');
  await name.getByRole('button', { name: 'Save name' }).click();
  await page.getByRole('heading', { level: 1, name: 'Plan, revived' }).waitFor();
});

test('link settings: while the pages are being prepared a bar counts them, and the screen follows them without a reload', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const id = await createLink(http, await makePdf(2), 'Deck.pdf');
  const { page } = await signedInDashboard(t, app, { accountId, viewport: PHONE });
  // The link as the API would answer 37 pages into a 300-page document, until `preparing` ends.
  let preparing = true;
  await page.route(
    (url) => url.pathname === `/api/links/${id}`,
    async (route) => {
      if (!preparing || route.request().method() !== 'GET') return route.continue();
      const response = await route.fetch();
      const link = (await response.json()) as { document: unknown };
      await route.fulfill({ response, json: { ...link, document: { status: 'processing', pages: 300, rendered: 37, error: null } } });
    },
  );
  await openSettings(page, app, id, 'Deck.pdf');
  const progress = page.getByRole('progressbar', { name: 'Pages of Deck.pdf prepared so far' });
  await progress.waitFor();
  assert.deepEqual([await progress.getAttribute('value'), await progress.getAttribute('max')], ['37', '300']);
  await page.getByText('37 of 300 pages ready').waitFor();
  await page.getByText('Preparing pages…').waitFor();
  await checkScreen(page, 'link-preparing-phone');

  preparing = false;
  await page.getByText('Pages ready', { exact: true }).waitFor({ timeout: 10_000 });
  await page.getByText('2 pages', { exact: true }).waitFor();
  assert.equal(await progress.count(), 0);
  await checkScreen(page, 'link-prepared-phone');
});

test('link analytics: a new view appears without a reload; the CSV downloads', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const id = await createLink(http, 'quarterly numbers', 'Numbers.txt');
  const { page } = await signedInDashboard(t, app, { accountId, viewport: DESKTOP });
  await installClock(page);
  await openScreen(page, app, `/app/documents/${id}/analytics`, 'Analytics: Numbers.txt');
  await page.getByText('No visitors yet').waitFor();
  assert.equal(await total(page, 'Views').textContent(), '0');

  const visitor = await openPage(t);
  await visitor.goto(`${app.url}/v/${id}`);
  await refreshNow(page);
  await total(page, 'Views').filter({ hasText: '1' }).waitFor();
  await page.getByRole('cell', { name: '127.0.0.x' }).waitFor();
  // Visitor, views, time, pages seen, device (Debian's headless Chromium), first and last view.
  const cells = await page
    .getByRole('row', { name: /127\.0\.0\.x/ })
    .getByRole('cell')
    .allTextContents();
  assert.deepEqual(cells.slice(0, 5), ['127.0.0.x', '1', '0 s', '0', 'Chrome · Linux']);
  await checkScreen(page, 'link-analytics-desktop');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  assert.equal(download.suggestedFilename(), `analytics-${id}.csv`);
  const path = await download.path();
  const { readFile } = await import('node:fs/promises');
  assert.match(
    await readFile(path, 'utf8'),
    /^visitor,views,seconds,first_view_at,last_view_at,pages_seen,user_agent,email_verified\r?\n127\.0\.0\.x,1,0,[^,]+,[^,]+,0,"?Mozilla\/5\.0 \(X11; Linux/,
  );

  const phone = await signedInDashboard(t, app, { accountId, viewport: PHONE });
  await openScreen(phone.page, app, `/app/documents/${id}/analytics`, 'Analytics: Numbers.txt');
  const card = phone.page.locator('.link-visitor-card', { hasText: '127.0.0.x' });
  await card.getByText('0 pages seen').waitFor();
  await card.getByText('Chrome · Linux').waitFor();
  await checkScreen(phone.page, 'link-analytics-phone');
});

test('link analytics: the latest 50 visitors first, 50 more on each "Show 50 more"', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const id = await createLink(http, 'the annual report', 'Report.txt');
  // 120 visitors' views, written as a view writes them (the visit, the link's tallies and counter).
  const { db } = app.runtime.database;
  const started = Date.now() - 120 * 60_000;
  await db.transaction().execute(async (trx) => {
    for (let n = 0; n < 120; n++) {
      const reader = { linkId: id, email: `reader${String(n).padStart(3, '0')}@example.com`, ip: '192.0.2.1', at: started + n * 60_000 };
      await trx
        .insertInto('visits')
        .values({
          token_hash: `report-${n}`,
          link_id: id,
          email: reader.email,
          ip: reader.ip,
          created_at: reader.at,
          expires_at: reader.at + 60_000,
          session_started_at: reader.at,
        })
        .execute();
      await linkTallies.viewOpened(trx, { ...reader, emailVerified: true, userAgent: null });
    }
    await trx.updateTable('links').set({ views: 120 }).where('id', '=', id).execute();
  });
  const { page } = await signedInDashboard(t, app, { accountId, viewport: DESKTOP });
  // How many visitors each analytics call asked for, by link.
  const asked: Array<{ linkId: string; visitors: string }> = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    const linkId = /^\/api\/links\/([^/]+)\/analytics$/.exec(url.pathname)?.[1];
    if (linkId) asked.push({ linkId, visitors: url.searchParams.get('visitors') ?? 'all' });
  });
  const askedFor = (linkId: string) => asked.filter((call) => call.linkId === linkId).map((call) => call.visitors);
  await openScreen(page, app, `/app/documents/${id}/analytics`, 'Analytics: Report.txt');
  const visitors = page.getByRole('region', { name: 'Visitors' });
  const rows = visitors.locator('tbody tr');
  await visitors.getByText('The latest 50 of 120 visitors').waitFor();
  assert.equal(await rows.count(), 50);
  assert.equal(await rows.first().getByRole('cell').first().textContent(), 'reader119@example.com', 'latest first');
  assert.deepEqual(askedFor(id), ['50'], 'only the visitors shown are fetched');
  await checkScreen(page, 'link-analytics-latest-visitors');

  await visitors.getByRole('button', { name: 'Show 50 more' }).click();
  await visitors.getByText('The latest 100 of 120 visitors').waitFor();
  assert.equal(await rows.count(), 100);
  await visitors.getByRole('button', { name: 'Show 50 more' }).click();
  await rows.nth(119).waitFor();
  assert.equal(await rows.last().getByRole('cell').first().textContent(), 'reader000@example.com');
  assert.equal(await visitors.getByRole('button', { name: 'Show 50 more' }).count(), 0, 'every visitor is listed');
  assert.equal(await visitors.getByText(/The latest/).count(), 0);

  // Another link's analytics, opened in the app while its numbers are slow to come: this
  // link's visitors are not shown as its own meanwhile, and it starts again at 50.
  const other = await createLink(http, 'a memo nobody read', 'Memo.txt');
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    (url) => url.pathname === `/api/links/${other}/analytics`,
    async (route) => {
      await released;
      await route.continue();
    },
  );
  await page.evaluate((path) => {
    const browser = globalThis as unknown as {
      history: { pushState(state: null, unused: string, url: string): void };
      dispatchEvent(event: Event): void;
      PopStateEvent: typeof Event;
    };
    browser.history.pushState(null, '', path);
    browser.dispatchEvent(new browser.PopStateEvent('popstate'));
  }, `/app/documents/${other}/analytics`);
  await page.getByRole('heading', { level: 1, name: 'Analytics: Memo.txt' }).waitFor();
  assert.equal(await page.getByText('reader119@example.com').count(), 0, "the other link's visitors are not shown");
  release();
  await page.getByText('No visitors yet').waitFor();
  assert.deepEqual(askedFor(other), ['50']);
});

test('link settings: the link is e-mailed to recipients with a note, and a preview picture is uploaded and removed', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId, http } = await app.createAccount();
  const id = await createLink(http, 'the deck', 'Deck.txt');
  const { page } = await signedInDashboard(t, app, { accountId });
  await openSettings(page, app, id, 'Deck.txt');

  const share = page.getByRole('region', { name: 'Send by e-mail' });
  await share.getByLabel('Recipients').fill('ana@fund.example\nbo@fund.example');
  await share.getByLabel('Note').fill('The deck we discussed.');
  await share.getByRole('button', { name: 'Send the link' }).click();
  await page.getByText('The link was sent to 2 people.').waitFor();
  const viewerUrl = (await http.get(`/api/links/${id}`)).body.viewer_url as string;
  for (const address of ['ana@fund.example', 'bo@fund.example']) {
    const mail = await smtp.waitFor(address);
    assert.ok(mail.text.includes(viewerUrl), 'the mail carries the viewer link');
    assert.ok(mail.text.includes('The deck we discussed.'));
  }
  assert.equal(await share.getByLabel('Recipients').inputValue(), '', 'the form is ready for the next');

  const picture = page.getByRole('region', { name: 'Preview picture' });
  const png = await sharp({ create: { width: 1200, height: 630, channels: 3, background: '#1d4ed8' } })
    .png()
    .toBuffer();
  await picture.getByLabel('Picture').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: png });
  await picture.getByRole('button', { name: 'Upload picture' }).click();
  await picture.getByRole('button', { name: 'Remove picture' }).waitFor();
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.hasPreviewImage, true);
  await checkScreen(page, 'link-share-preview');
  await picture.getByRole('button', { name: 'Remove picture' }).click();
  await picture.getByRole('button', { name: 'Remove picture' }).waitFor({ state: 'detached' });
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.hasPreviewImage, false);
});

test('link analytics: who accepted the link’s agreement appears without a reload, with a CSV export', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const nda = (await http.post('/api/agreements', { name: 'Mutual NDA', text: 'Keep it to yourself.' })).body.id as number;
  const id = await createLink(http, 'the memo', 'Memo.txt', { agreementId: String(nda) });
  const { page } = await signedInDashboard(t, app, { accountId });
  await installClock(page);
  await openScreen(page, app, `/app/documents/${id}/analytics`, /Memo\.txt/);
  const acceptances = page.getByRole('region', { name: 'Agreement accepted by' });
  await acceptances.getByRole('heading', { name: 'Nobody has accepted it yet' }).waitFor();

  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${id}`);
  assert.equal((await visitor.post(`/v/${id}/agreement`, { name: 'Ana Lima', email: 'ana@fund.example', agree: 'yes' })).status, 303);
  await refreshNow(page);
  await acceptances.getByRole('cell', { name: /Ana Lima/ }).waitFor();
  assert.equal(await acceptances.getByRole('link', { name: 'Export CSV' }).getAttribute('href'), `/api/links/${id}/agreements?format=csv`);
  await checkScreen(page, 'link-acceptances');
});
