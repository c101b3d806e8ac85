import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, test, type TestContext } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser, openPage, screenshot, until, waitForPages } from '../helpers/browser.js';
import { createLink, uploadForm } from '../helpers/files.js';
import type { HttpClient } from '../helpers/http.js';
import { makePdf, pdfPageTexts } from '../helpers/pdf.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';
import sharp from 'sharp';
import { waitFor } from '../helpers/wait.js';

after(closeBrowser);

/** Waits (60 s at most) until the link's document is drawn, of `pages` pages when given (a new version's count). */
async function documentReady(http: HttpClient, id: string, pages?: number): Promise<void> {
  await waitFor(
    async () => (await http.get(`/api/links/${id}`)).body.document as { status: string; pages: number },
    (document) => document.status === 'ready' && (pages === undefined || document.pages === pages),
    60_000,
  );
}

/** A watermarked PDF of `pages` pages, all drawn, and a browser page to visit it with. */
async function watermarkedDeck(t: TestContext, pages: number) {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(pages), 'Deck.pdf', { hasWatermark: '1' });
  await documentReady(http, id);
  return { app, id, page: await openPage(t) };
}

test('OTP journey: e-mail, code from the SMTP server, document shown as page images rendered on the server', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'linkvault <share@example.com>' } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(3), 'Board deck.pdf', { requiresOtp: '1', allowedDomains: 'example.org' });
  const page = await openPage(t, { viewport: { width: 390, height: 844 } }); // a phone

  await page.goto(`${app.url}/v/${id}`);
  await screenshot(page, 'otp-email');
  await page.getByLabel('E-mail address').fill('dana@example.org');
  await page.keyboard.press('Enter');
  await page.getByLabel('Code').waitFor();
  await screenshot(page, 'otp-code');

  const mail = await smtp.waitFor('dana@example.org');
  assert.equal(mail.from, 'share@example.com');
  await page.getByLabel('Code').fill(otpCodeIn(mail));
  await page.getByRole('button', { name: 'Continue' }).click();
  await waitForPages(page, 3);
  await screenshot(page, 'document-pdf');
});

test('password journey: wrong, then right', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(1), 'Contract.pdf', { addPassword: '1', password: 'open sesame' });
  const page = await openPage(t);
  await page.goto(`${app.url}/v/${id}`);
  await page.getByLabel('Password').fill('wrong');
  await page.getByRole('button', { name: 'Open' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').innerText(), /not right/);
  await screenshot(page, 'password-wrong');
  await page.getByLabel('Password').fill('open sesame');
  await page.getByRole('button', { name: 'Open' }).click();
  await waitForPages(page, 1);
});

test('approval journey: the waiting page proceeds by itself once the owner approves; a denied one says so', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(2), 'Data.pdf', { requiresApproval: '1' });
  const page = await openPage(t);
  await page.goto(`${app.url}/v/${id}`);
  await page.getByLabel('E-mail address').fill('erin@example.com');
  await page.getByRole('button', { name: 'Request access' }).click();
  await page.locator('#waiting').waitFor();
  await screenshot(page, 'approval-waiting');

  const [request] = (await http.get(`/api/links/${id}/requests`)).body.requests;
  assert.equal((await http.patch(`/api/links/${id}/requests/${request.id}`, { status: 'approved' })).status, 200);
  await waitForPages(page, 2); // no reload by the test: the page polls and continues

  const denied = await openPage(t);
  await denied.goto(`${app.url}/v/${id}`);
  await denied.getByLabel('E-mail address').fill('frank@example.com');
  await denied.getByRole('button', { name: 'Request access' }).click();
  await denied.locator('#waiting').waitFor();
  const second = (await http.get(`/api/links/${id}/requests`)).body.requests.find((r: any) => r.email === 'frank@example.com');
  assert.equal((await http.patch(`/api/links/${id}/requests/${second.id}`, { status: 'denied' })).status, 200);
  await denied.getByText('declined your request').waitFor({ timeout: 15_000 });
  await screenshot(denied, 'approval-denied');
});

test('expired, deactivated and view-limit pages', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const expiring = await createLink(http, 'x', 'x.txt', { expiration: '1h' });
  const deactivated = await createLink(http, 'x', 'x.txt');
  assert.equal((await http.patch(`/api/links/${deactivated}/active`, { isActive: false })).status, 200);
  const capped = await createLink(http, 'x', 'x.txt', { maxViews: '1' });
  const page = await openPage(t);

  await page.goto(`${app.url}/v/${capped}`);
  const second = await openPage(t);
  const response = await second.goto(`${app.url}/v/${capped}`);
  assert.equal(response!.status(), 410);
  await second.getByRole('heading', { name: 'View limit reached' }).waitFor();
  await screenshot(second, 'view-limit');

  assert.equal((await page.goto(`${app.url}/v/${deactivated}`))!.status(), 403);
  await page.getByRole('heading', { name: 'This link has been deactivated' }).waitFor();
  await screenshot(page, 'deactivated');

  now += 3_600_001;
  assert.equal((await page.goto(`${app.url}/v/${expiring}`))!.status(), 410);
  await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
  await screenshot(page, 'expired');
});

test('data room: the list of its links, each opening inside the room session with a view of its own', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const deck = await createLink(http, await makePdf(2), 'Deck.pdf');
  const model = await createLink(http, await makePdf(1), 'Model.pdf');
  const room = (await http.post('/api/links/room', { name: 'Series A', children_ids: [deck, model] })).body.id;
  const page = await openPage(t);
  await page.goto(`${app.url}/v/${room}`);
  await page.getByRole('link', { name: /Deck\.pdf/ }).waitFor();
  await screenshot(page, 'room');
  await page.getByRole('link', { name: /Model\.pdf/ }).click();
  await waitForPages(page, 1);
  await page.getByRole('link', { name: /Series A/ }).click();
  await page.getByRole('link', { name: /Deck\.pdf/ }).click();
  await waitForPages(page, 2);
  const views = await app.runtime.database.db.selectFrom('links').select(['id', 'views']).where('id', 'in', [room, deck, model]).execute();
  assert.deepEqual(
    Object.fromEntries(views.map((v) => [v.id, v.views])),
    { [room]: 1, [deck]: 1, [model]: 1 },
    'one room session, one view; each link opened in it counts its own',
  );
});

test('preview: the server sends N pages and the page says "Preview: N of M pages"; a watermarked browser never receives a PDF', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(5), 'Report.pdf', {
    previewPages: '2',
    hasWatermark: '1',
    bookingUrl: 'https://cal.example.com/me',
  });
  const page = await openPage(t);
  const types: string[] = [];
  page.on('response', (response) => types.push(response.headers()['content-type'] ?? ''));
  await page.goto(`${app.url}/v/${id}`);
  await waitForPages(page, 2);
  assert.equal(await page.locator('#preview-note').innerText(), 'Preview: 2 of 5 pages');
  assert.ok(
    types.some((type) => type.startsWith('image/jpeg')),
    'pages arrive as images stamped for the visit',
  );
  assert.ok(!types.some((type) => type.startsWith('application/pdf')), `no PDF reaches the browser: ${types.join(', ')}`);
  assert.equal(await page.getByRole('link', { name: 'Book a meeting' }).getAttribute('href'), 'https://cal.example.com/me');
  await screenshot(page, 'preview-watermarked');
});

test("the first page's image is fetched while the viewer loads, once: the page preloads it", async (t) => {
  const { app, id, page } = await watermarkedDeck(t, 3);
  const asked: string[] = [];
  page.on('request', (request) => asked.push(new URL(request.url()).pathname + new URL(request.url()).search));
  await page.goto(`${app.url}/v/${id}`);
  await waitForPages(page, 3);

  // Stamped for this visit: its URL names the view.
  const firstPage = (await page.locator('link[rel="preload"][as="image"]').getAttribute('href')) ?? '';
  assert.match(firstPage, new RegExp(`^/v/${id}/pages/1\\?v=1&view=[0-9A-Z]{6}$`));
  assert.equal(asked.filter((url) => url === firstPage).length, 1, `page 1 asked for once: ${asked.join(', ')}`);
  assert.ok(asked.indexOf(firstPage) < asked.indexOf(`/v/${id}/pages.json`), `page 1 asked for before the page list: ${asked.join(', ')}`);
});

test('a page the server was too busy to stamp (503) is asked for again and shown', async (t) => {
  const { app, id, page } = await watermarkedDeck(t, 2);
  let refused = 0;
  await page.route(new RegExp(`/v/${id}/pages/2\\?`), async (route) => {
    if (refused > 0) return route.continue();
    refused += 1;
    return route.fulfill({ status: 503, headers: { 'retry-after': '2' }, contentType: 'application/json', body: '{"error":"busy"}' });
  });
  await page.goto(`${app.url}/v/${id}`);
  await waitForPages(page, 2);
  const second = page.locator('.viewer-page[data-page="2"] img');
  await second.scrollIntoViewIfNeeded();
  const shown = (image: unknown) => {
    const { complete, naturalWidth } = image as { complete: boolean; naturalWidth: number };
    return complete && naturalWidth > 0;
  };
  await until(() => second.evaluate(shown), 15_000);
  assert.equal(refused, 1);
  assert.match((await second.getAttribute('src')) ?? '', /[?&]retry=1$/);
  assert.equal(await page.locator('.viewer-page.failed').count(), 0, 'not shown as failed');
});

test('e-mail gate and block list: the address opens the document, a blocked domain sees a neutral refusal', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(2), 'Pitch.pdf', { requireEmail: '1', blockedDomains: 'rival.example' });
  const page = await openPage(t, { viewport: { width: 390, height: 844 } });
  await page.goto(`${app.url}/v/${id}`);
  await screenshot(page, 'email-gate');
  await page.getByLabel('E-mail address').fill('ana@example.org');
  await page.getByRole('button', { name: 'Continue' }).click();
  await waitForPages(page, 2);

  const blocked = await openPage(t);
  await blocked.goto(`${app.url}/v/${id}`);
  await blocked.getByLabel('E-mail address').fill('spy@rival.example');
  await blocked.getByRole('button', { name: 'Continue' }).click();
  await blocked.getByRole('heading', { name: 'Access denied' }).waitFor();
  assert.doesNotMatch(await blocked.locator('body').innerText(), /rival|block/i);
  await screenshot(blocked, 'access-denied');
});

test('download button: absent unless allowed; when allowed, the saved PDF is stamped for the visitor', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const closed = await createLink(http, await makePdf(1), 'Closed.pdf', { hasWatermark: '1' });
  const open = await createLink(http, await makePdf(1), 'Memo.pdf', { hasWatermark: '1', allowDownload: '1', requireEmail: '1' });
  const page = await openPage(t);

  await page.goto(`${app.url}/v/${closed}`);
  await waitForPages(page, 1);
  assert.equal(await page.getByRole('link', { name: 'Download' }).count(), 0);

  await page.goto(`${app.url}/v/${open}`);
  await page.getByLabel('E-mail address').fill('ana@example.org');
  await page.getByRole('button', { name: 'Continue' }).click();
  await waitForPages(page, 1);
  await screenshot(page, 'document-download');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
  assert.equal(download.suggestedFilename(), 'Memo.pdf');
  const saved = await fs.readFile((await download.path())!);
  const [text] = await pdfPageTexts(saved);
  assert.match(text!, /ana@example\.org/);
});

test('agreement gate: the document waits until the visitor names themselves and ticks "I agree"', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const nda = await http.post('/api/agreements', { name: 'Mutual NDA', text: '## Confidentiality\n\nKeep **everything** in this deck to yourself.' });
  const id = await createLink(http, await makePdf(1), 'Deck.pdf', { agreementId: String(nda.body.id) });
  const page = await openPage(t, { viewport: { width: 390, height: 844 } });
  await page.goto(`${app.url}/v/${id}`);
  await page.getByRole('heading', { name: 'Confidentiality' }).waitFor();
  await page.getByLabel('Full name').fill('Ana Lima');
  await page.getByLabel('E-mail address').fill('ana@example.org');
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  assert.equal(new URL(page.url()).pathname, `/v/${id}`, 'the unticked form is not sent');
  assert.equal(await page.locator('#paged-viewer').count(), 0);
  await screenshot(page, 'agreement-gate');
  await page.getByLabel('I have read and agree to Mutual NDA').check();
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  await waitForPages(page, 1);
  assert.equal((await http.get(`/api/links/${id}/agreements`)).body.acceptances[0].name, 'Ana Lima');
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`paged viewer at ${viewport.width} px: counter, next and previous, arrow keys, thumbnails, zoom, no sideways overflow`, async (t) => {
    const app = await startApp(t);
    const { http } = await app.createAccount('professional');
    const id = await createLink(http, await makePdf(6), 'Deck.pdf');
    const page = await openPage(t, { viewport });
    await page.goto(`${app.url}/v/${id}`);
    await waitForPages(page, 6);
    const counter = page.getByLabel('Page', { exact: true });
    assert.equal(await counter.inputValue(), '1');
    assert.equal(await page.locator('#viewer-page-count').innerText(), '6');
    assert.ok(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), 'no page before the first');

    await page.getByRole('button', { name: 'Next page' }).click();
    await until(async () => (await counter.inputValue()) === '2');
    const spoken = page.locator('#viewer-page-spoken');
    assert.equal(await spoken.getAttribute('aria-live'), 'polite');
    assert.equal(await spoken.textContent(), 'Page 2 of 6', 'a screen reader hears where the visitor is');
    await page.locator('#paged-viewer').focus();
    await page.keyboard.press('ArrowRight');
    await until(async () => (await counter.inputValue()) === '3');
    await page.keyboard.press('End');
    await until(async () => (await counter.inputValue()) === '6');
    assert.equal(await spoken.textContent(), 'Page 6 of 6');
    assert.ok(await page.getByRole('button', { name: 'Next page' }).isDisabled(), 'no page after the last');

    // A side column on wide screens, a strip to open on a phone.
    const thumbnails = page.getByRole('button', { name: 'Thumbnails' });
    if ((await thumbnails.getAttribute('aria-expanded')) !== 'true') await thumbnails.click();
    await page.getByRole('button', { name: 'Page 2', exact: true }).click();
    await until(async () => (await counter.inputValue()) === '2');
    assert.equal(await page.getByRole('button', { name: 'Page 2', exact: true }).getAttribute('aria-current'), 'page');

    const width = () =>
      page
        .locator('.viewer-page')
        .first()
        .evaluate((figure) => figure.getBoundingClientRect().width);
    const before = await width();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    assert.ok((await width()) > before, 'zoom in widens the page');
    await page.getByRole('button', { name: 'Fit width' }).click();
    const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
    assert.ok(overflow <= 0, `no sideways overflow at fit width (${overflow} px)`);
    await screenshot(page, `paged-viewer-${viewport.width}`);
  });
}

test('mid-read: a reload keeps the page, a link turned off is said, and a replaced document is said with none of its pages mixed in', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const status = (page: Awaited<ReturnType<typeof openPage>>) => page.locator('#viewer-status');

  const deck = await createLink(http, await makePdf(12), 'Deck.pdf');
  await documentReady(http, deck, 12);
  const reader = await openPage(t);
  await reader.goto(`${app.url}/v/${deck}`);
  await waitForPages(reader, 12);
  const counter = reader.getByLabel('Page', { exact: true });
  await reader.getByLabel('Page', { exact: true }).fill('4');
  await reader.keyboard.press('Enter');
  await until(async () => (await counter.inputValue()) === '4');
  await reader.reload();
  await waitForPages(reader, 12);
  await until(async () => (await counter.inputValue()) === '4');
  assert.equal(new URL(reader.url()).hash, '#page=4', 'the place is in the address');

  assert.equal((await http.patch(`/api/links/${deck}/active`, { isActive: false })).status, 200);
  await reader.keyboard.press('End');
  await until(async () => (await status(reader).innerText()).includes('This document can no longer be opened from this page.'), 20_000);

  const replaced = await createLink(http, await makePdf(12), 'Board.pdf');
  await documentReady(http, replaced, 12);
  const visitor = await openPage(t);
  await visitor.goto(`${app.url}/v/${replaced}`);
  await waitForPages(visitor, 12);
  const pageImages: string[] = [];
  visitor.on('response', (response) => {
    if (/\/pages\/\d+(\?|$)/.test(new URL(response.url()).pathname + '?')) pageImages.push(`${response.status()} ${new URL(response.url()).search}`);
  });
  assert.equal((await http.put(`/api/links/${replaced}/file`, uploadForm(await makePdf(3), 'Board v2.pdf'))).status, 200);
  await documentReady(http, replaced, 3);
  await visitor.keyboard.press('End');
  await until(async () => (await status(visitor).innerText()).includes('This document has been updated.'), 20_000);
  assert.ok(
    pageImages.every((line) => !line.startsWith('200') || line.includes('v=1')),
    `only pages of the version opened were shown: ${pageImages.join(', ')}`,
  );
});

test('pages that failed while the network was down load once it is back', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const deck = await createLink(http, await makePdf(12), 'Deck.pdf');
  await documentReady(http, deck);
  const page = await openPage(t);
  await page.goto(`${app.url}/v/${deck}`);
  await waitForPages(page, 12);
  await page.context().setOffline(true);
  await page.locator('#paged-viewer').focus();
  await page.keyboard.press('End');
  const failed = page.locator('.viewer-page.failed');
  await failed.first().waitFor({ timeout: 30_000 }); // after the retries, 2, 4 and 8 s apart
  await page.context().setOffline(false);
  await failed.first().waitFor({ state: 'detached', timeout: 15_000 });
  const last = page.locator('.viewer-page[data-page="12"] img');
  await until(async () => (await last.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)) > 0, 15_000);
});

test('only time the tab is shown is reading time: not a background stretch before closing, nor a tab never looked at', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const deck = await createLink(http, await makePdf(2), 'Deck.pdf');
  await documentReady(http, deck);
  const analytics = async () => (await http.get(`/api/links/${deck}/analytics`)).body as { totalSeconds: number; totalViews: number };
  // What Chrome tells a page when its tab goes to the background.
  const hidden = `Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });`;

  const reader = await openPage(t);
  await reader.goto(`${app.url}/v/${deck}`);
  await reader.locator('.viewer-page img').first().waitFor();
  await reader.waitForTimeout(2_000);
  await reader.evaluate(`${hidden} document.dispatchEvent(new Event('visibilitychange'))`);
  await reader.waitForTimeout(5_000);
  await reader.close({ runBeforeUnload: true });
  const read = await waitFor(analytics, (body) => body.totalSeconds > 0, 10_000);
  assert.ok(read.totalSeconds >= 1 && read.totalSeconds <= 3, `about 2 s shown, then 5 s hidden: ${read.totalSeconds} s counted`);

  // A link opened in a background tab and closed unseen.
  const unseen = await openPage(t);
  await unseen.addInitScript(hidden);
  await unseen.goto(`${app.url}/v/${deck}`);
  await unseen.locator('#paged-viewer[data-status="ready"]').waitFor();
  await unseen.waitForTimeout(3_000);
  await unseen.close({ runBeforeUnload: true });
  await waitFor(analytics, (body) => body.totalViews === 2, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // a beacon sent at close, had there been one
  assert.equal((await analytics()).totalSeconds, read.totalSeconds, 'never shown, never read');
});

test('the time on a document reaches its analytics when the visitor leaves: per page for a paged one, as page 1 for a picture', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const picture = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();
  const image = await createLink(http, picture, 'Plan.png');
  const deck = await createLink(http, await makePdf(2), 'Deck.pdf');
  await documentReady(http, deck);
  for (const [id, shown] of [
    [image, 'img.media'],
    [deck, '.viewer-page img'],
  ] as const) {
    const page = await openPage(t);
    await page.goto(`${app.url}/v/${id}`);
    await page.locator(shown).first().waitFor();
    await page.waitForTimeout(1_500);
    await page.close({ runBeforeUnload: true });
    const analytics = await waitFor(
      async () => (await http.get(`/api/links/${id}/analytics`)).body as { totalSeconds: number; pages: Array<{ page: number; seconds: number }> },
      (body) => body.totalSeconds > 0,
      10_000,
    );
    assert.equal(analytics.pages[0]?.page, 1, id === image ? 'a picture is its page 1' : 'the page read');
  }
});
