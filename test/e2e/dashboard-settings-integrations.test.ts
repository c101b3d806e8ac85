import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, openSection, signedInDashboard } from '../helpers/dashboard.js';
import { startReceiver } from '../helpers/events-receiver.js';
import { createLink } from '../helpers/files.js';
import { makePdf } from '../helpers/pdf.js';

// Settings' integrations, webhooks and agreements (the account's own sections are in dashboard-settings).
after(closeBrowser);

test('integrations: "Send test message" posts to the channel, and a refusal is told', async (t) => {
  const app = await startApp(t, { env: { ALLOW_PRIVATE_WEBHOOKS: '1' } });
  const { accountId, http } = await app.createAccount('business');
  const slack = await startReceiver(t);
  await http.post('/api/integrations', { type: 'slack', config: { webhook_url: `${slack.url}/services/T/B/X`, channel: '#deals' } });
  const { page } = await signedInDashboard(t, app, { accountId, role: 'owner' });
  await openSection(page, app, 'integrations');
  await page.getByRole('button', { name: 'Send test message' }).click();
  await page.getByText('A test message was posted to Slack.').waitFor();
  assert.match((await slack.waitFor(1))[0]!.body.text, /linkvault is connected/);

  const gone = await startReceiver(t, () => 410);
  await http.post('/api/integrations', { type: 'slack', config: { webhook_url: `${gone.url}/services/T/B/Y`, channel: '#old' } });
  await page.reload();
  await page.locator('.settings-row', { hasText: '#old' }).getByRole('button', { name: 'Send test message' }).click();
  await page.getByRole('alert').filter({ hasText: 'slack answered 410' }).waitFor();
});

test('webhooks: added with its events, the secret shown once, a signed test sent, paused and deleted', async (t) => {
  const app = await startApp(t, { env: { ALLOW_PRIVATE_WEBHOOKS: '1', EVENT_POLL_MS: '20' } });
  const { accountId, http } = await app.createAccount('business');
  const receiver = await startReceiver(t);
  const { page } = await signedInDashboard(t, app, { accountId, role: 'admin' });
  await openSection(page, app, 'webhooks');
  await page.getByLabel('Endpoint URL').fill(`${receiver.url}/hooks/secret-token`);
  await page.getByLabel('A visitor asks for access').check();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const secret = (await page.locator('.settings-once .settings-secret').textContent()) ?? '';
  assert.match(secret, /^whsec_/);
  await checkScreen(page, 'settings-webhooks-secret');
  await page.getByRole('button', { name: 'Done' }).click();
  assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again');

  const [webhook] = (await http.get('/api/webhooks')).body.webhooks as Array<{ id: number; events: string[]; active: boolean }>;
  assert.deepEqual(webhook!.events.sort(), ['access_request.created', 'link.viewed']);
  const row = page.getByRole('list', { name: 'Your webhooks' }).getByRole('listitem');
  await row.getByRole('button', { name: 'Send test' }).click();
  await page.getByText('A signed test message is on its way.').waitFor();
  const [hook] = await receiver.waitFor(1);
  assert.equal(hook!.path, '/hooks/secret-token');
  assert.equal(hook!.body.type, 'webhook.test');
  await row.getByText('Latest deliveries').click();
  const deliveries = row.getByRole('list', { name: 'Latest deliveries' });
  await deliveries.getByText('Delivered').waitFor({ timeout: 20_000 });
  await deliveries.getByText('webhook.test').waitFor();
  await checkScreen(page, 'settings-webhooks-deliveries');

  // What the page sent and was answered, and what the audit log kept, so that a failure says which change landed.
  const exchanges: string[] = [];
  page.on('response', (response) => {
    const request = response.request();
    if (!/\/api\/webhooks/.test(request.url())) return;
    void response.text().then(
      (body) => exchanges.push(`${request.method()} ${request.url()} ${request.postData() ?? ''} -> ${response.status()} ${body}`),
      () => exchanges.push(`${request.method()} ${request.url()} -> ${response.status()} (body gone)`),
    );
  });
  const patched = page.waitForResponse((response) => response.request().method() === 'PATCH');
  await row.getByRole('button', { name: 'Pause' }).click();
  assert.equal((await patched).status(), 200);
  await row.getByText('Paused', { exact: true }).waitFor();
  const { active } = (await http.get(`/api/webhooks/${webhook!.id}`)).body;
  const audit = (await http.get('/api/audit-log?action=webhook.updated')).body.entries;
  assert.equal(active, false, JSON.stringify({ exchanges, audit }));
  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('heading', { name: 'No webhooks' }).waitFor();
  assert.deepEqual((await http.get('/api/webhooks')).body.webhooks, []);
});

test('agreements: written, edited in a dialog and deleted after confirming', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const { page } = await signedInDashboard(t, app, { accountId, role: 'member' });
  await openSection(page, app, 'agreements');
  await page.getByLabel('Agreement name').fill('Mutual NDA');
  await page.getByLabel('Text').fill('## Confidentiality\n\nKeep **everything** to yourself.');
  await page.getByRole('button', { name: 'Add agreement' }).click();
  const row = page.getByRole('list', { name: 'Your agreements' }).getByRole('listitem').filter({ hasText: 'Mutual NDA' });
  await row.waitFor();
  assert.equal(await page.getByLabel('Agreement name').inputValue(), '', 'the form is ready for the next');
  const [agreement] = (await http.get('/api/agreements')).body.agreements as Array<{ id: number; text: string }>;
  assert.match(agreement!.text, /Keep \*\*everything\*\*/);

  await row.getByRole('button', { name: 'Edit Mutual NDA' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Mutual NDA' });
  await dialog.getByLabel('Agreement name').fill('Mutual NDA (2027)');
  await dialog.getByRole('button', { name: 'Save agreement' }).click();
  await page.getByRole('list', { name: 'Your agreements' }).locator('strong', { hasText: 'Mutual NDA (2027)' }).waitFor();
  await checkScreen(page, 'settings-agreements');
  assert.equal((await http.get(`/api/agreements/${agreement!.id}`)).body.name, 'Mutual NDA (2027)');

  await page.getByRole('button', { name: 'Delete Mutual NDA (2027)' }).click();
  await page.getByRole('dialog', { name: 'Delete Mutual NDA (2027)?' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('heading', { name: 'No agreements' }).waitFor();
  assert.equal((await http.get(`/api/agreements/${agreement!.id}`)).status, 404);
});

test('agreements: one of the account’s PDFs is chosen as the text, and changed for another', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const first = await createLink(http, await makePdf(1), 'nda-2026.pdf');
  const second = await createLink(http, await makePdf(1), 'nda-2027.pdf');
  await createLink(http, 'not a pdf', 'notes.txt');
  const { page } = await signedInDashboard(t, app, { accountId, role: 'member' });
  await openSection(page, app, 'agreements');
  await page.getByLabel('Agreement name').fill('NDA');
  await page.getByLabel('Content').selectOption({ label: 'A PDF from your documents' });
  const offered = page.getByRole('list', { name: 'Links you can add' });
  await offered.getByRole('button', { name: 'Add nda-2026.pdf' }).waitFor();
  assert.equal(await offered.getByRole('button', { name: 'Add notes.txt' }).count(), 0, 'only PDFs are offered');
  await offered.getByRole('button', { name: 'Add nda-2026.pdf' }).click();
  await page.getByText('Visitors read this PDF before they agree.').waitFor();
  await checkScreen(page, 'settings-agreements-pdf');
  await page.getByRole('button', { name: 'Add agreement' }).click();
  const row = page.getByRole('list', { name: 'Your agreements' }).getByRole('listitem').filter({ hasText: 'NDA' });
  await row.getByText('A PDF from one of your links').waitFor();
  const [agreement] = (await http.get('/api/agreements')).body.agreements as Array<{ id: number; text: string | null; pdfLinkId: string }>;
  assert.deepEqual([agreement!.text, agreement!.pdfLinkId], [null, first]);

  await row.getByRole('button', { name: 'Edit NDA' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit NDA' });
  await dialog.getByText('nda-2026.pdf').waitFor();
  await dialog.getByRole('button', { name: 'Choose another' }).click();
  await dialog.getByRole('button', { name: 'Add nda-2027.pdf' }).click();
  await dialog.getByRole('button', { name: 'Save agreement' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal((await http.get(`/api/agreements/${agreement!.id}`)).body.pdfLinkId, second);
});
