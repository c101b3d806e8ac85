import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser, screenshot } from '../helpers/browser.js';
import { checkScreen, openScreen, openSection, signedInDashboard } from '../helpers/dashboard.js';
import { signedInPerson } from '../helpers/people.js';
import { startSmtp } from '../helpers/smtp.js';

after(closeBrowser);

test("POST /api/branding/smtp/test sends through the account's own SMTP server, or answers its error", async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { ALLOW_PRIVATE_SMTP: '1' } });
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');

  const before = await owner.client.post('/api/branding/smtp/test', {});
  assert.equal(before.status, 422, 'no SMTP host saved yet');

  const port = Number(new URL(smtp.url).port);
  const saved = await owner.client.post('/api/branding', {
    smtp_host: '127.0.0.1',
    smtp_port: port,
    smtp_encryption: 'none',
    from_email: 'deals@acme.example',
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const sent = await owner.client.post('/api/branding/smtp/test', {});
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.deepEqual(sent.body, { ok: true, to: owner.email });
  const mail = await smtp.waitFor(owner.email);
  assert.equal(mail.from, 'deals@acme.example');
  assert.match(mail.subject, /test e-mail/);

  // A port nothing listens on: the connection error comes back as the answer.
  await owner.client.post('/api/branding', { smtp_port: 1 });
  const failed = await owner.client.post('/api/branding/smtp/test', {});
  assert.equal(failed.status, 422);
  assert.match(failed.body.error, /^The test e-mail could not be sent: /);
  const { http } = await app.createAccount('business');
  assert.equal((await http.post('/api/branding/smtp/test', {})).status, 403, 'an API key has no person to mail');
});

test('a change of the SMTP server, port, encryption or user name forgets the saved password: an admin cannot send it elsewhere', async (t) => {
  const [corporate, elsewhere] = [await startSmtp(t), await startSmtp(t)];
  const app = await startApp(t, { env: { ALLOW_PRIVATE_SMTP: '1' } });
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  const portOf = (smtp: { url: string }) => Number(new URL(smtp.url).port);
  const credentials = { smtp_username: 'corp-mailer', smtp_password: 'owner-only secret' };

  await owner.client.post('/api/branding', { smtp_host: '127.0.0.1', smtp_port: portOf(corporate), smtp_encryption: 'none', ...credentials });
  assert.equal((await owner.client.post('/api/branding/smtp/test', {})).status, 200);
  assert.deepEqual(corporate.logins, [{ username: 'corp-mailer', password: 'owner-only secret' }], 'the password is used where it was saved');

  const renamed = await admin.client.post('/api/branding', { from_name: 'Acme deals', smtp_encryption: 'none', smtp_port: portOf(corporate) });
  assert.equal(renamed.body.smtp_password_set, true, 'the sender and unchanged fields keep it');

  for (const move of [
    { smtp_port: portOf(elsewhere) },
    { smtp_host: 'smtp.acme.example' },
    { smtp_encryption: 'ssl' },
    { smtp_username: 'someone' },
  ]) {
    await owner.client.post('/api/branding', { smtp_host: '127.0.0.1', smtp_port: portOf(corporate), smtp_encryption: 'none', ...credentials });
    const moved = await admin.client.post('/api/branding', move);
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.smtp_password_set, false, JSON.stringify(move));
  }
  await admin.client.post('/api/branding', {
    smtp_host: '127.0.0.1',
    smtp_port: portOf(elsewhere),
    smtp_encryption: 'none',
    smtp_username: 'corp-mailer',
  });
  await admin.client.post('/api/branding/smtp/test', {});
  assert.equal(
    elsewhere.logins.some((login) => login.password === 'owner-only secret'),
    false,
    "the other server never saw the owner's password",
  );

  const given = await owner.client.post('/api/branding', { smtp_port: portOf(corporate), ...credentials });
  assert.equal(given.body.smtp_password_set, true, 'a password sent with the move is kept');
});

test('a member sees only their own settings; the API refuses them API keys', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const { page, client } = await signedInDashboard(t, app, { role: 'member', accountId });
  await openSection(page, app, 'profile');
  const nav = page.getByRole('navigation', { name: 'Settings sections' });
  for (const visible of ['Profile', 'Two-factor sign-in', 'Sessions', 'Agreements']) await nav.getByRole('link', { name: visible }).waitFor();
  for (const hidden of ['API keys', 'Members', 'Branding', 'Integrations', 'Webhooks', 'Payments', 'Audit log']) {
    assert.equal(await nav.getByRole('link', { name: hidden }).count(), 0, hidden);
  }
  assert.equal((await client.get('/api/api-keys')).status, 403);
  await openScreen(page, app, '/app/settings/api-keys', 'Settings');
  await page.getByRole('heading', { name: 'This section is not available' }).waitFor();
  await checkScreen(page, 'settings-member');
});

test('API keys: created and shown once, then masked; toggled and revoked after confirmation', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const { page, client } = await signedInDashboard(t, app, { role: 'admin', accountId });
  await openSection(page, app, 'api-keys');
  await page.getByLabel('Name', { exact: true }).fill('CRM sync');
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.locator('.settings-new-key');
  const key = (await shown.textContent()) ?? '';
  assert.match(key, /^lvk_/);
  await page.getByRole('button', { name: 'Copy key' }).waitFor();
  await checkScreen(page, 'settings-api-key-once');
  const row = page.locator('tbody tr', { hasText: 'CRM sync' });
  const prefix = (await row.locator('code').textContent()) ?? '';
  assert.ok(prefix.length < key.length && !prefix.includes(key.slice(8)), `masked: ${prefix}`);
  await page.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await row.waitFor();
  assert.equal(await page.getByText(key).count(), 0, 'the whole key is never shown again');
  assert.match(await row.innerText(), /Test admin · acts as admin/, 'the row names who made the key, and the role it acts with');
  // The command-line key acts as owner: an admin is not offered what only an owner may do to it.
  const commandLineKey = page.locator('tbody tr', { hasText: 'default' });
  assert.match(await commandLineKey.innerText(), /Command line/);
  assert.match(await commandLineKey.innerText(), /Only an owner can change it/);
  assert.equal(await commandLineKey.getByRole('button').count(), 0);
  const listed = (await client.get('/api/api-keys')).body.api_keys as Array<{ name: string; acts_as: string | null }>;
  assert.deepEqual(listed.map((listedKey) => [listedKey.name, listedKey.acts_as]).sort(), [
    ['CRM sync', 'admin'],
    ['default', 'owner'],
  ]);

  await row.getByRole('button', { name: 'Deactivate CRM sync' }).click();
  await row.getByText('Inactive').waitFor();
  assert.equal((await app.http(key).get('/api/links')).status, 401);
  await row.getByRole('button', { name: 'Activate CRM sync' }).click();
  await row.getByText('Active', { exact: true }).waitFor();

  await row.getByRole('button', { name: 'Revoke CRM sync' }).click();
  // The confirmation's red button, readable in the dark scheme too.
  await page.emulateMedia({ colorScheme: 'dark' });
  await checkScreen(page, 'settings-api-key-revoke-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
  await row.waitFor({ state: 'detached' });
  const keys = (await client.get('/api/api-keys')).body.api_keys as Array<{ name: string }>;
  assert.ok(!keys.some((listed) => listed.name === 'CRM sync'));
});

test('branding: the preview follows the colour picker before saving; after saving the header wears the colour', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const { page } = await signedInDashboard(t, app, { role: 'owner', accountId });
  await openSection(page, app, 'branding');
  const button = page.locator('.settings-preview-button');
  // The tests' TypeScript has no DOM types: the browser's getComputedStyle is reached through globalThis.
  type Styles = { getComputedStyle(element: unknown): { backgroundColor: string } };
  const colourOf = (selector: string) =>
    page.locator(selector).evaluate((element) => (globalThis as unknown as Styles).getComputedStyle(element).backgroundColor);
  const before = await colourOf('.settings-preview-button');
  await page.getByLabel('Brand colour', { exact: true }).fill('#0a7d3b');
  await until(async () => (await colourOf('.settings-preview-button')) === 'rgb(10, 125, 59)', 'the preview follows the picker');
  assert.notEqual(before, 'rgb(10, 125, 59)');
  assert.equal(await page.getByLabel('Brand colour (hex code)').inputValue(), '#0a7d3b');
  await page.getByLabel('Page background (hex code)').fill('#fdf6e3');
  await until(async () => (await colourOf('.settings-preview')) === 'rgb(253, 246, 227)', 'the hex field drives the preview too');
  await button.waitFor();
  await checkScreen(page, 'settings-branding-preview');

  await page.getByRole('button', { name: 'Save branding' }).click();
  await page.getByText('Branding saved.').waitFor();
  await page.reload();
  await page.locator('.app-header').waitFor();
  assert.equal(await colourOf('.app-header'), 'rgb(10, 125, 59)');
});

test('branding: text on the brand colour is black or white by contrast, a short hex colour is worn, and a pair that reads poorly is said with its fix', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  await http.post('/api/branding', { primary_color: '#ff8800', btn_text_color: '#ffffff' });
  const { page } = await signedInDashboard(t, app, { role: 'owner', accountId });
  type Styles = { getComputedStyle(element: unknown): { color: string; backgroundColor: string } };
  const styleOf = (selector: string) =>
    page.locator(selector).evaluate((element) => {
      const { color, backgroundColor } = (globalThis as unknown as Styles).getComputedStyle(element);
      return { color, backgroundColor };
    });
  await openSection(page, app, 'branding');
  assert.deepEqual(
    await styleOf('.app-header'),
    { color: 'rgb(0, 0, 0)', backgroundColor: 'rgb(255, 136, 0)' },
    'black reads on orange, white does not',
  );
  const notice = page.getByRole('status').filter({ hasText: 'Button text is hard to read' });
  await notice.waitFor();
  assert.match(await notice.innerText(), /\(2\.\d:1; aim for at least 4\.5:1\)/);
  // The preview shows the poor pair as visitors would see it (axe would rightly flag it): a picture only.
  await screenshot(page, 'dashboard-settings-branding-contrast-notice');
  await notice.getByRole('button', { name: 'Use #000000' }).click();
  assert.equal(await page.getByLabel('Button text colour (hex code)').inputValue(), '#000000');
  await notice.waitFor({ state: 'detached' });
  await checkScreen(page, 'settings-branding-contrast');

  await http.post('/api/branding', { primary_color: '#c00' });
  await page.reload();
  await page.locator('.app-header').waitFor();
  assert.deepEqual(await styleOf('.app-header'), { color: 'rgb(255, 255, 255)', backgroundColor: 'rgb(204, 0, 0)' }, '#c00 is #cc0000');
});

test('settings a role may use but the plan does not include say which plan has them, and ask the API nothing', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('professional');
  const { page, client } = await signedInDashboard(t, app, { role: 'admin', accountId });
  const me = (await client.get('/api/me')).body;
  assert.deepEqual(me.areasAbovePlan, [
    { area: 'integrations', plan: 'business' },
    { area: 'branding', plan: 'business' },
  ]);
  const refused: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 403) refused.push(response.url());
  });

  for (const [section, name] of [
    ['branding', 'Branding'],
    ['integrations', 'Integrations'],
  ] as const) {
    await openSection(page, app, section);
    await page.getByRole('heading', { name: `${name} is part of the Business plan` }).waitFor();
    await page.getByText('This account is on the Professional plan.', { exact: false }).waitFor();
  }
  await checkScreen(page, 'settings-beyond-plan');
  assert.deepEqual(refused, []);

  const business = await signedInDashboard(t, app, { role: 'admin' });
  assert.deepEqual((await business.client.get('/api/me')).body.areasAbovePlan, []);
  await openSection(business.page, app, 'branding');
  assert.equal(await business.page.getByRole('heading', { name: /part of the/ }).count(), 0);
  const member = await signedInPerson(app, accountId, 'member');
  assert.deepEqual((await member.client.get('/api/me')).body.areasAbovePlan, [], 'only areas the role may manage');
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
