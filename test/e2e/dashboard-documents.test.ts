import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Locator, Page, Route } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { closeBrowser, until } from '../helpers/browser.js';
import { checkScreen, DESKTOP, openScreen, PHONE, signedInDashboard } from '../helpers/dashboard.js';
import { createLink, downloadOriginal } from '../helpers/files.js';

after(closeBrowser);

const HOUR = 3_600_000;

/** The row (desktop) or card (phone) of the link named `name`. */
const rowOf = (page: Page, name: string): Locator => page.locator('tbody tr, .documents-card').filter({ hasText: name });

async function openDocuments(page: Page, app: TestApp): Promise<void> {
  await openScreen(page, app, '/app/documents', 'Documents');
  await page.locator('.skeleton').waitFor({ state: 'detached' });
}

async function chooseAction(page: Page, name: string, action: string): Promise<void> {
  await rowOf(page, name).locator('summary', { hasText: 'Actions' }).click();
  await rowOf(page, name).getByRole('button', { name: action }).click();
}

async function readClipboard(page: Page): Promise<string> {
  // A string, not a function: the tests' TypeScript has no DOM types.
  return page.evaluate<string>('navigator.clipboard.readText()');
}

test('the list: tabs with their counts, search, sort, pages of 50, gate chips; at desktop and phone widths', async (t) => {
  // The app's clock runs 3 hours behind until the short link should have expired.
  let behind = 3 * HOUR;
  const app = await startApp(t, { clock: () => Date.now() - behind });
  const { accountId, http } = await app.createAccount();
  await createLink(http, 'short', 'short-lived.txt', { expiration: '1h' });
  for (let n = 1; n <= 50; n++) await createLink(http, `file ${n}`, `report-${String(n).padStart(2, '0')}.txt`);
  await createLink(http, 'gated', 'Zeta gated.txt', {
    addPassword: '1',
    password: 'open sesame',
    requiresOtp: '1',
    allowedDomains: 'example.com',
    requiresApproval: '1',
    hasWatermark: '1',
  });
  behind = 0;

  for (const [width, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const { page } = await signedInDashboard(t, app, { accountId, viewport });
    await openDocuments(page, app);
    await page.getByRole('button', { name: /Active\s*51/ }).waitFor();
    await page.getByRole('button', { name: /Expired\s*1/ }).waitFor();
    await page.getByText('1–50 of 51').waitFor();
    const gated = rowOf(page, 'Zeta gated.txt');
    for (const chip of ['Password', 'E-mail code', 'Approval', 'Watermark', /^Expires /]) await gated.getByText(chip).waitFor();
    await checkScreen(page, `documents-list-${width}`);

    if (width === 'desktop') {
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText('51–51 of 51').waitFor();
      await rowOf(page, 'short-lived.txt').waitFor({ state: 'detached' });
      await rowOf(page, 'report-01.txt').waitFor();

      // Another order patches the same rows for other links: what was copied or opened stays with its own link.
      const firstRow = page.locator('tbody tr').first();
      await firstRow.getByRole('button', { name: 'Copy link' }).click();
      await firstRow.locator('[data-copied="true"]').waitFor();
      await firstRow.locator('summary', { hasText: 'Actions' }).click();
      await firstRow.locator('details[open]').waitFor();
      await page.getByLabel('Sort by').selectOption({ label: 'Name, Z to A' });
      await until(async () => /^Zeta gated\.txt/.test((await firstRow.textContent()) ?? ''));
      assert.equal(await page.locator('tbody [data-copied], tbody details[open]').count(), 0);
      await chooseAction(page, 'Zeta gated.txt', 'Replace file');
      await page.getByRole('dialog', { name: 'Replace Zeta gated.txt' }).getByRole('button', { name: 'Close' }).click();
      await page.getByText('1–50 of 51').waitFor();
      await page.getByLabel('Sort by').selectOption({ label: 'Name, A to Z' });
      await until(async () => /^report-01\.txt/.test((await firstRow.textContent()) ?? ''));

      await page.getByLabel('Search by name').fill('REPORT-4');
      await page.getByText('1–10 of 10').waitFor();
      assert.equal(await page.locator('tbody tr').count(), 10);
      await page.getByLabel('Search by name').fill('no such name');
      await page.getByRole('heading', { name: 'No link is named like “no such name”' }).waitFor();
      await page.getByLabel('Search by name').fill('');

      await page.getByRole('button', { name: /Expired\s*1/ }).click();
      await page.getByText('1–1 of 1').waitFor();
      await rowOf(page, 'short-lived.txt')
        .getByText(/^Expired /)
        .waitFor();
      await checkScreen(page, 'documents-expired-desktop');
    }
  }
});

test("the list's view is kept in its address: Back from a link's screen and a reload show the same search, tab and order", async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  for (const name of ['contract-a.txt', 'contract-b.txt', 'invoice-c.txt']) await createLink(http, name, name);
  const { page } = await signedInDashboard(t, app, { accountId });
  await openScreen(page, app, '/app/documents', 'Documents');
  await page.getByLabel('Search by name').fill('contract');
  await page.getByText('1–2 of 2').waitFor();
  await page.getByLabel('Sort by').selectOption({ label: 'Name, Z to A' });
  await page.waitForURL(`${app.url}/app/documents?q=contract&order=nameDesc`);

  await rowOf(page, 'contract-a.txt').getByRole('link', { name: 'contract-a.txt' }).click();
  await page.getByRole('heading', { level: 1, name: 'contract-a.txt' }).waitFor();
  await page.goBack();
  await page.getByText('1–2 of 2').waitFor();
  assert.equal(await page.getByLabel('Search by name').inputValue(), 'contract');
  assert.match((await page.locator('tbody tr').first().textContent()) ?? '', /^contract-b\.txt/, 'Z to A still');

  await page.reload();
  await page.getByText('1–2 of 2').waitFor();
  assert.equal(await page.getByLabel('Search by name').inputValue(), 'contract');
  await openScreen(page, app, '/app/documents?tab=expired&page=x&order=nonsense', 'Documents');
  await page.getByRole('heading', { name: 'No expired links' }).waitFor();
});

test('an account without links is told to upload its first file, and the header button leads there', async (t) => {
  const app = await startApp(t);
  const { page } = await signedInDashboard(t, app);
  await openScreen(page, app, '/app', 'Documents');
  await page.getByRole('heading', { name: 'Upload your first file' }).waitFor();
  await checkScreen(page, 'documents-empty');
  await page.getByRole('link', { name: 'Upload', exact: true }).first().click();
  await page.getByRole('heading', { level: 1, name: 'Upload files' }).waitFor();
});

test('Copy link, delete after confirming, and a data room made of two selected rows', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const ids: Record<string, string> = {};
  for (const name of ['alpha.txt', 'bravo.txt', 'charlie.txt']) ids[name] = await createLink(http, name, name);
  const { page } = await signedInDashboard(t, app, { accountId });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await openDocuments(page, app);

  await rowOf(page, 'bravo.txt').getByRole('button', { name: 'Copy link' }).click();
  await page.getByRole('status').getByText('Copied').waitFor();
  assert.equal(await readClipboard(page), (await http.get('/api/links')).body.links.find((link: any) => link.id === ids['bravo.txt']).viewer_url);

  // Deleting asks first; cancelling keeps the link.
  await chooseAction(page, 'charlie.txt', 'Delete');
  const confirm = page.getByRole('dialog', { name: 'Delete charlie.txt?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await http.get(`/api/links/${ids['charlie.txt']}`)).status, 200);
  await chooseAction(page, 'charlie.txt', 'Delete');
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await rowOf(page, 'charlie.txt').waitFor({ state: 'detached' });
  assert.equal((await http.get(`/api/links/${ids['charlie.txt']}`)).status, 404);
  await page.getByRole('button', { name: /Active\s*2/ }).waitFor();

  await page.getByLabel('Select alpha.txt').check();
  await page.getByLabel('Select bravo.txt').check();
  await page.getByText('2 links selected').waitFor();
  await page.getByRole('button', { name: 'Make a data room' }).click();
  const dialog = page.getByRole('dialog', { name: 'Make a data room' });
  await dialog.getByLabel('Room name').fill('Due diligence');
  await checkScreen(page, 'documents-room-dialog');
  await dialog.getByRole('button', { name: 'Make the room' }).click();
  await page.waitForURL(/\/app\/rooms\/[0-9A-Za-z]+$/);
  await page.getByRole('heading', { level: 1, name: 'Due diligence' }).waitFor();
  const roomId = new URL(page.url()).pathname.split('/').at(-1)!;
  const room = await http.get(`/api/links/${roomId}`);
  assert.equal(room.status, 200);
  assert.equal(room.body.name, 'Due diligence');
});

test("keyboard: a dialog opened from a row's Actions hands focus back to that button however it closes", async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  await createLink(http, 'x', 'focus.txt');
  const { page } = await signedInDashboard(t, app, { accountId });
  await openDocuments(page, app);
  const actions = rowOf(page, 'focus.txt').locator('summary', { hasText: 'Actions' });
  const focusedIsActions = () => actions.evaluate((summary) => summary === summary.ownerDocument.activeElement);
  for (const [action, close] of [
    ['Replace file', 'Escape'],
    ['Replace file', 'Close'],
    ['Replace file', 'Cancel'],
    ['Delete', 'Cancel'],
  ] as const) {
    await actions.focus();
    await page.keyboard.press('Enter');
    await rowOf(page, 'focus.txt').getByRole('button', { name: action }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    if (close === 'Escape') await page.keyboard.press('Escape');
    else await dialog.getByRole('button', { name: close }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await focusedIsActions(), true, `${action}, then ${close}`);
  }
});

test('deleting the last link of the last page shows the page before, not an empty list', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  for (let n = 1; n <= 51; n++) await createLink(http, `f${n}`, `doc-${String(n).padStart(2, '0')}.txt`);
  const { page } = await signedInDashboard(t, app, { accountId });
  await openDocuments(page, app);
  await page.getByText('1–50 of 51').waitFor();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByText('51–51 of 51').waitFor();
  const last = (await page.locator('tbody tr').first().innerText()).split(/\s/)[0]!;
  await chooseAction(page, last, 'Delete');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  // Exactly: the emptied page's own pager reads "51–50 of 50" until the page before is shown.
  await page.getByText('1–50 of 50', { exact: true }).waitFor();
  assert.equal(await page.locator('tbody tr').count(), 50);
  assert.equal(await page.getByRole('heading', { name: 'Upload your first file' }).count(), 0);
});

test('a change made while the list is being fetched again shows: the answer begun before it is not kept', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  for (const name of ['alpha.txt', 'bravo.txt', 'charlie.txt']) await createLink(http, name, name);
  const { page } = await signedInDashboard(t, app, { accountId });
  await openDocuments(page, app);

  // The refetch after the first deletion is answered by the server at once, but reaches the page only when released.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: string[] = [];
  let holding = true;
  await page.route(/\/api\/links\?/, async (route) => {
    if (!holding) return route.continue();
    held.push(route.request().url());
    const response = await route.fetch();
    await released;
    await route.fulfill({ response });
  });
  await chooseAction(page, 'alpha.txt', 'Delete');
  await page.getByRole('dialog', { name: 'Delete alpha.txt?' }).getByRole('button', { name: 'Delete' }).click();
  await until(async () => held.length > 0);
  // Bravo is deleted while that answer, which still lists it, is on its way. The screen unselects a deleted row
  // just before it asks for the list again: once bravo's box is clear, the list has been asked for.
  const bravoSelected = page.getByLabel('Select bravo.txt');
  await bravoSelected.check();
  await chooseAction(page, 'bravo.txt', 'Delete');
  await page.getByRole('dialog', { name: 'Delete bravo.txt?' }).getByRole('button', { name: 'Delete' }).click();
  await until(async () => !(await bravoSelected.isChecked()));
  holding = false;
  release();

  await rowOf(page, 'bravo.txt').waitFor({ state: 'detached' });
  await rowOf(page, 'alpha.txt').waitFor({ state: 'detached' });
  await page.getByRole('button', { name: /Active\s*1/ }).waitFor();
  assert.equal(await rowOf(page, 'charlie.txt').count(), 1);
  assert.equal(held.length, 1, 'one list call was held; the one after the second deletion went straight through');
});

test('replace a file, and a download token shown once', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const id = await createLink(http, 'version one', 'contract.txt');
  const { page } = await signedInDashboard(t, app, { accountId });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await openDocuments(page, app);

  await chooseAction(page, 'contract.txt', 'Replace file');
  const replace = page.getByRole('dialog', { name: 'Replace contract.txt' });
  await replace.getByLabel('New version').setInputFiles({ name: 'virus.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ') });
  await replace.getByRole('button', { name: 'Replace' }).click();
  await replace.getByRole('alert').waitFor();
  assert.match((await replace.getByRole('alert').textContent()) ?? '', /\S/, "the API's sentence");
  await replace.getByLabel('New version').setInputFiles({ name: 'contract-v2.txt', mimeType: 'text/plain', buffer: Buffer.from('version two') });
  await replace.getByRole('button', { name: 'Replace' }).click();
  await page.getByRole('status').getByText('contract.txt is now version 2').waitFor();
  const replaced = (await http.get('/api/links')).body.links[0];
  assert.deepEqual([replaced.version, replaced.name], [2, 'contract-v2.txt'], 'the link takes the new file name');
  await rowOf(page, 'contract-v2.txt').waitFor();

  await chooseAction(page, 'contract-v2.txt', 'Download token');
  const tokenDialog = page.getByRole('dialog', { name: 'Download token for contract-v2.txt' });
  await tokenDialog.getByLabel('Downloads allowed').fill('2');
  await tokenDialog.getByRole('button', { name: 'Create token' }).click();
  await tokenDialog.getByText('it is shown only this once').waitFor();
  await checkScreen(page, 'documents-download-token');
  await tokenDialog.getByRole('button', { name: 'Copy token' }).click();
  const token = await readClipboard(page);
  assert.equal(await tokenDialog.locator('code').textContent(), token);
  const download = await downloadOriginal(app.url, id, token);
  assert.equal(download.response.status, 200);
  assert.equal(download.body.toString(), 'version two');
  await tokenDialog.getByRole('button', { name: 'Done' }).click();
  await chooseAction(page, 'contract-v2.txt', 'Download token');
  await tokenDialog.getByRole('button', { name: 'Create token' }).waitFor();
  assert.equal(await tokenDialog.getByText(token).count(), 0, 'a token is never shown again');
});

test('upload: two files through the input with their progress, a template, an error per file, a cancel and a drop', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const template = await http.post('/api/templates', { name: 'Watermarked', hasWatermark: true });
  assert.equal(template.status, 200);

  for (const [width, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const { page } = await signedInDashboard(t, app, { accountId, viewport });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await openScreen(page, app, '/app/documents/upload', 'Upload files');
    if (width === 'phone') {
      await checkScreen(page, 'documents-upload-phone');
      continue;
    }
    await page.getByLabel('Template').selectOption({ label: 'Watermarked' });

    // A slow connection, so each file's progress is seen on its way.
    const network = await page.context().newCDPSession(page);
    await network.send('Network.enable');
    await network.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 400_000 });
    const input = page.getByLabel('Drop files here, or choose files');
    await input.setInputFiles([
      { name: 'board-deck.txt', mimeType: 'text/plain', buffer: Buffer.alloc(600_000, 'a') },
      { name: 'budget.txt', mimeType: 'text/plain', buffer: Buffer.alloc(600_000, 'b') },
    ]);
    await page.getByRole('progressbar', { name: 'Upload of board-deck.txt' }).waitFor();
    await page.getByRole('progressbar', { name: 'Upload of budget.txt' }).waitFor();
    await page
      .getByText(/ of 600 kB \([1-9]\d?%\)/)
      .first()
      .waitFor();
    await checkScreen(page, 'documents-upload-progress');
    await page.locator('.documents-upload').filter({ hasText: 'board-deck.txt' }).getByText('Uploaded', { exact: true }).waitFor({ timeout: 30_000 });
    await page.locator('.documents-upload').filter({ hasText: 'budget.txt' }).getByText('Uploaded', { exact: true }).waitFor({ timeout: 30_000 });
    assert.deepEqual(
      await page.locator('.documents-upload [role="status"]').allTextContents(),
      ['board-deck.txt uploaded', 'budget.txt uploaded'],
      'each upload tells a screen reader how it ended',
    );

    // A cancelled file and a refused one: each says what happened to it. The
    // cancelled upload is held before it reaches the server: Chromium's throttling
    // slows the progress events, not the bytes, so a fast server could otherwise
    // store the file before the click lands.
    let holdUpload!: (route: Route) => void;
    const heldUpload = new Promise<Route>((resolve) => (holdUpload = resolve));
    await page.route('**/api/upload', async (route) => {
      // large.txt is the only file on its way while this route is in place.
      if (route.request().method() === 'POST') holdUpload(route);
      else await route.continue();
    });
    await input.setInputFiles([{ name: 'large.txt', mimeType: 'text/plain', buffer: Buffer.alloc(3_000_000, 'c') }]);
    const large = page.locator('.documents-upload').filter({ hasText: 'large.txt' });
    const held = await heldUpload;
    await large.getByRole('button', { name: 'Cancel large.txt' }).click();
    await large.getByText('Cancelled', { exact: true }).waitFor();
    assert.equal(await large.getByRole('status').textContent(), 'Upload of large.txt cancelled');
    await held.abort().catch(() => undefined);
    await page.unroute('**/api/upload');
    await network.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await input.setInputFiles([{ name: 'setup.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ') }]);
    const refused = page.locator('.documents-upload').filter({ hasText: 'setup.exe' }).getByRole('alert');
    await refused.waitFor();
    assert.match((await refused.textContent()) ?? '', /\S/);

    // A file dropped on the zone, as a drag from the desktop would.
    const dropped = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['dropped content'], 'dropped.txt', { type: 'text/plain' }));
      return transfer;
    })()`);
    await page.locator('.documents-dropzone').dispatchEvent('drop', { dataTransfer: dropped });
    const droppedRow = page.locator('.documents-upload').filter({ hasText: 'dropped.txt' });
    await droppedRow.getByText('Uploaded', { exact: true }).waitFor();
    await checkScreen(page, 'documents-upload-desktop');

    const links = (await http.get('/api/links')).body.links as Array<{ id: string; name: string; viewer_url: string; has_watermark: boolean }>;
    assert.deepEqual(links.map((link) => link.name).sort(), ['board-deck.txt', 'budget.txt', 'dropped.txt']);
    assert.ok(
      links.every((link) => link.has_watermark),
      'the template applied',
    );
    await droppedRow.getByRole('button', { name: 'Copy link' }).click();
    assert.equal(await readClipboard(page), links.find((link) => link.name === 'dropped.txt')!.viewer_url);
    const droppedId = links.find((link) => link.name === 'dropped.txt')!.id;
    assert.equal(await droppedRow.getByRole('link', { name: /Settings/ }).getAttribute('href'), `/app/documents/${droppedId}/settings`);

    await page.getByRole('link', { name: 'Back to documents' }).click();
    await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
    for (const name of ['board-deck.txt', 'budget.txt', 'dropped.txt']) await rowOf(page, name).waitFor();
  }
});
