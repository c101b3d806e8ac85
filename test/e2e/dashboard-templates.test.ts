import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Route } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, openScreen, signedInDashboard, VIEWPORTS } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';

after(closeBrowser);

for (const { name: width, viewport } of VIEWPORTS) {
  test(`templates at ${width} width: made, its settings saved and listed as chips, the API's error beside its field, deleted`, async (t) => {
    const app = await startApp(t);
    const { accountId, http } = await app.createAccount('business');
    const nda = (await http.post('/api/agreements', { name: 'Mutual NDA', text: 'Keep it to yourself.' })).body.id as number;
    const { page } = await signedInDashboard(t, app, { accountId, viewport });
    await openScreen(page, app, '/app/templates', 'Templates');
    await page.getByRole('heading', { name: 'Make your first template' }).waitFor();
    await checkScreen(page, `templates-empty-${width}`);

    await page.getByRole('button', { name: 'New template' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New template' });
    await dialog.getByLabel('Template name').fill('Investor deck');
    await dialog.getByLabel('Watermark').check();
    await dialog.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/app\/templates\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').at(-1));
    await page.getByRole('heading', { level: 1, name: 'Investor deck' }).waitFor();
    assert.equal(await page.getByLabel('Watermark').isChecked(), true);

    // A wrong number is refused with the API's sentence beside its field.
    await page.getByLabel('Views allowed').fill('-3');
    await page.getByRole('button', { name: 'Save template' }).click();
    const maxViews = page.getByLabel('Views allowed');
    await page.locator('.field-error').first().waitFor();
    assert.equal(await maxViews.getAttribute('aria-invalid'), 'true');

    await maxViews.fill('25');
    await page.getByLabel('Links expire after').selectOption('24h');
    await page.getByLabel('E-mail code').check();
    await page.getByLabel('Allowed domains').fill('fund.example');
    await page.getByLabel('Approve each visitor').check();
    await page.getByLabel('Agreement to accept').selectOption({ label: 'Mutual NDA' });
    const saved = page.waitForResponse((response) => response.url().endsWith(`/api/templates/${id}`) && response.request().method() === 'PATCH');
    await page.getByRole('button', { name: 'Save template' }).click();
    assert.equal((await saved).status(), 200);
    await checkScreen(page, `template-${width}`);
    const template = (await http.get(`/api/templates/${id}`)).body.template;
    assert.deepEqual(
      {
        expiration: template.expiration,
        hasWatermark: template.hasWatermark,
        requiresOtp: template.requiresOtp,
        allowedDomains: template.allowedDomains,
        requiresApproval: template.requiresApproval,
        agreementId: template.agreementId,
        maxViews: template.maxViews,
      },
      {
        expiration: '24h',
        hasWatermark: true,
        requiresOtp: true,
        allowedDomains: ['fund.example'],
        requiresApproval: true,
        agreementId: nda,
        maxViews: 25,
      },
    );

    // An upload that picks it takes its settings.
    const link = await createLink(http, 'deck', 'deck.txt', { templateId: String(id) });
    const settings = (await http.get(`/api/links/${link}`)).body.settings;
    assert.equal(settings.requiresApproval, true);
    assert.equal(settings.agreementId, nda);

    await page.getByRole('link', { name: 'All templates' }).click();
    const row = page.getByRole('table', { name: 'Link templates' }).getByRole('row').filter({ hasText: 'Investor deck' });
    for (const chip of ['Expires after 24 hours', 'Watermark', 'E-mail code', 'Approval', 'Agreement', 'At most 25 views'])
      await row.getByText(chip, { exact: true }).waitFor();
    await checkScreen(page, `templates-${width}`);

    await row.getByRole('button', { name: 'Delete Investor deck' }).click();
    await page.getByRole('dialog', { name: 'Delete Investor deck?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Make your first template' }).waitFor();
    assert.equal((await http.get(`/api/templates/${id}`)).status, 404);
  });
}

test('an answer lost on its way back (a restart): Create again makes no second template', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const { page } = await signedInDashboard(t, app, { accountId });
  await openScreen(page, app, '/app/templates', 'Templates');
  await page.getByRole('button', { name: 'New template' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'New template' });
  await dialog.getByLabel('Template name').fill('Investor NDA');
  // The request reaches the server, which makes the template; its answer never comes back.
  await page.route('**/api/templates', async (route: Route) => {
    if (route.request().method() !== 'POST') return route.continue();
    await route.fetch();
    await route.abort('connectionreset');
  });
  await dialog.getByRole('button', { name: 'Create template' }).click();
  await dialog.getByText('linkvault could not be reached').waitFor();
  await page.unroute('**/api/templates');
  await dialog.getByRole('button', { name: 'Create template' }).click();
  await page.waitForURL(/\/app\/templates\/\d+$/);
  const templates = (await http.get('/api/templates')).body.templates as Array<{ name: string }>;
  assert.deepEqual(
    templates.map((template) => template.name),
    ['Investor NDA'],
  );
});

test('a template shows and keeps every setting it holds: block lists, the preview card and booking link', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const made = await http.post('/api/templates', {
    name: 'Data room',
    blockedDomains: ['rival.example'],
    bookingUrl: 'https://calendar.example/ann',
    previewTitle: 'Series A materials',
  });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const id = made.body.id as number;
  const { page } = await signedInDashboard(t, app, { accountId });
  await openScreen(page, app, `/app/templates/${id}`, 'Data room');
  assert.equal(await page.getByLabel('Blocked domains').inputValue(), 'rival.example');
  assert.equal(await page.getByLabel('Booking link').inputValue(), 'https://calendar.example/ann');
  assert.equal(await page.getByLabel('Preview title').inputValue(), 'Series A materials');

  await page.getByLabel('Preview description').fill('Read before Thursday');
  await page.getByLabel('Blocked e-mail addresses').fill('leaker@press.example');
  const saved = page.waitForResponse((response) => response.url().endsWith(`/api/templates/${id}`) && response.request().method() === 'PATCH');
  await page.getByRole('button', { name: 'Save template' }).click();
  assert.equal((await saved).status(), 200);
  const template = (await http.get(`/api/templates/${id}`)).body.template;
  assert.deepEqual(
    [template.blockedDomains, template.blockedEmails, template.bookingUrl, template.previewTitle, template.previewDescription],
    [['rival.example'], ['leaker@press.example'], 'https://calendar.example/ann', 'Series A materials', 'Read before Thursday'],
  );
  await checkScreen(page, 'template-every-setting');

  // Selling the download asks for a price; without payments on this server the API's sentence says why not.
  await page.getByLabel('Sell the download').check();
  await page.getByLabel('Price').fill('12');
  await page.getByLabel('Currency').fill('EUR');
  const refused = page.waitForResponse((response) => response.url().endsWith(`/api/templates/${id}`) && response.request().method() === 'PATCH');
  await page.getByRole('button', { name: 'Save template' }).click();
  const answer = await refused;
  assert.equal(answer.status(), 422);
  assert.deepEqual(JSON.parse(answer.request().postData()!).downloadCurrency, 'eur');
  await page.getByText((await answer.json()).error).waitFor();
});

test('link settings: an agreement is chosen from the account’s agreements and taken off again', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const nda = (await http.post('/api/agreements', { name: 'Mutual NDA', text: 'Keep it to yourself.' })).body.id as number;
  const id = await createLink(http, 'deck', 'deck.txt');
  const { page } = await signedInDashboard(t, app, { accountId });
  await openScreen(page, app, `/app/documents/${id}/settings`, 'deck.txt');
  const agreement = page.getByLabel('Agreement to accept');
  const saveVisitors = async () => {
    const saved = page.waitForResponse((response) => response.url().endsWith(`/api/links/${id}`) && response.request().method() === 'PATCH');
    await page.getByRole('button', { name: 'Save visitors' }).click();
    assert.equal((await saved).status(), 200);
  };
  // The link is read again after each save. Holding that read until the next choice is made
  // shows that its arrival does not undo a choice made while it was on its way.
  let holdRefetch!: (route: Route) => void;
  const heldRefetch = new Promise<Route>((resolve) => (holdRefetch = resolve));
  let held = false;
  const theLink = (url: URL) => url.pathname === `/api/links/${id}`;
  await page.route(theLink, async (route) => {
    // Only the first read is held; any later one goes straight through.
    if (route.request().method() === 'GET' && !held) {
      held = true;
      holdRefetch(route);
    } else await route.continue();
  });
  await agreement.selectOption({ label: 'Mutual NDA' });
  await saveVisitors();
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.agreementId, nda);
  const refetch = await heldRefetch;
  await agreement.selectOption({ label: 'None' });
  await refetch.continue();
  await page.unroute(theLink);
  await page.getByRole('button', { name: 'Save visitors' }).and(page.locator(':enabled')).waitFor();
  assert.equal(await agreement.inputValue(), '');
  await saveVisitors();
  assert.equal((await http.get(`/api/links/${id}`)).body.settings.agreementId, null);
});

test('a template, room or portal that does not exist says so, without a pointless "Try again"', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const roomless = await createLink(http, 'a file', 'file.txt');
  const { page } = await signedInDashboard(t, app, { accountId });
  for (const [path, sentence] of [
    ['/app/templates/999999', 'Template 999999 not found'],
    ['/app/rooms/AAAAAAAAAAAAAAAAAAAAAA', 'Link AAAAAAAAAAAAAAAAAAAAAA not found'],
    ['/app/portals/AAAAAAAAAAAAAAAAAAAAAA', 'not found'],
    // An id that cannot name anything, and a file's id where a room's was expected: nothing to try again either.
    ['/app/templates/abc', 'There is nothing at this address.'],
    ['/app/rooms/' + roomless, 'is a file, not a data room'],
  ] as const) {
    await openScreen(page, app, path, /Templates|Rooms|Portals|file\.txt/);
    await page.getByRole('alert').filter({ hasText: sentence }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Try again' }).count(), 0, path);
  }
});
