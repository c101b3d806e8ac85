import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, DESKTOP, openScreen, openSection, PHONE, signedInDashboard, VIEWPORTS } from '../helpers/dashboard.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';
import { startSmtp } from '../helpers/smtp.js';

after(closeBrowser);

test('POST /api/me/password: a wrong current password is 422, a short new one 400; a change ends the other sessions', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount();
  const person = await signedInPerson(app, accountId, 'member');
  const other = await signedInPerson(app, accountId, 'member');
  const elsewhere = createSessionClient(app.url);
  assert.equal((await elsewhere.post('/api/auth/sign-in', { email: person.email, password: TEST_PASSWORD })).status, 200);

  const wrong = await person.client.post('/api/me/password', { currentPassword: 'not the password', newPassword: 'a brand new password' });
  assert.equal(wrong.status, 422);
  assert.equal(wrong.body.error, 'The current password is not right');
  assert.equal((await person.client.post('/api/me/password', { currentPassword: TEST_PASSWORD, newPassword: 'short' })).status, 400);

  const changed = await person.client.post('/api/me/password', { currentPassword: TEST_PASSWORD, newPassword: 'a brand new password' });
  assert.equal(changed.status, 204);
  assert.equal((await person.client.get('/api/me')).status, 200, 'this session stays');
  assert.equal((await elsewhere.get('/api/me')).status, 401, 'the other session ended');
  assert.equal((await other.client.get('/api/me')).status, 200, "another person's session is untouched");
  const again = createSessionClient(app.url);
  assert.equal((await again.post('/api/auth/sign-in', { email: person.email, password: 'a brand new password' })).status, 200);
  assert.equal((await app.http().post('/api/me/password', { currentPassword: 'x', newPassword: 'y'.repeat(12) })).status, 401);
});

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

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('members: invite by e-mail (listed as pending, withdrawn after confirmation)', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const { page } = await signedInDashboard(t, app, { role: 'owner', accountId });
  await signedInPerson(app, accountId, 'member');
  await openSection(page, app, 'members');
  await page.getByLabel('Role of Test member').waitFor();
  await page.getByLabel('E-mail').fill('new.hire@example.com');
  await page.getByLabel('Role', { exact: true }).selectOption('admin');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  const pending = page.getByRole('list', { name: 'Pending invitations' }).getByRole('listitem').filter({ hasText: 'new.hire@example.com' });
  await pending.getByText('Admin').waitFor();
  await checkScreen(page, 'settings-members');

  await page.getByLabel('Role of Test member').selectOption('admin');
  await pending.getByRole('button', { name: 'Withdraw' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Withdraw' }).click();
  await pending.waitFor({ state: 'detached' });
});

test('profile: a person changes their own name, which the header and GET /api/me then show; a key cannot', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount();
  const { page } = await signedInDashboard(t, app, { accountId, role: 'member' });
  await openSection(page, app, 'profile');
  const name = page.getByLabel('Name', { exact: true });
  await name.fill('   ');
  assert.equal(await page.getByRole('button', { name: 'Save name' }).isDisabled(), true, 'a blank name cannot be sent');
  await name.fill('Ada Lovelace');
  const saved = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/me' && response.request().method() === 'PATCH');
  await page.getByRole('button', { name: 'Save name' }).click();
  assert.equal((await saved).status(), 200);
  await page
    .getByRole('button', { name: /Ada Lovelace/ })
    .first()
    .waitFor();
  await page.reload();
  assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Ada Lovelace');
  const audit = (
    await app.runtime.database.db.selectFrom('audit_log').select(['action', 'details']).where('action', '=', 'user.renamed').execute()
  )[0];
  assert.ok(audit, 'the change is audited');
  assert.equal(JSON.parse(audit.details).to, 'Ada Lovelace');

  assert.equal((await http.patch('/api/me', { name: 'Key holder' })).status, 403, 'an API key has no person to rename');
});

test("password: a wrong current password shows the API's sentence beside the field", async (t) => {
  const app = await startApp(t);
  const { page } = await signedInDashboard(t, app, { role: 'member' });
  await openSection(page, app, 'profile');
  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password', { exact: true }).fill('a brand new password');
  await page.getByLabel('Repeat the new password').fill('a brand new password');
  await page.getByRole('button', { name: 'Change password' }).click();
  const current = page.getByLabel('Current password');
  await page.locator('.field-error', { hasText: 'The current password is not right' }).waitFor();
  assert.equal(await current.getAttribute('aria-invalid'), 'true');
  await checkScreen(page, 'settings-password-error');
});

test('two-factor enrolment shows a QR code and asks for the password too; sessions mark the current one', async (t) => {
  const app = await startApp(t);
  const { page } = await signedInDashboard(t, app, { role: 'owner' });
  await openSection(page, app, 'two-factor');
  await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
  await qr.waitFor();
  assert.ok(((await qr.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)) as number) > 0, 'the QR code is drawn');
  const secret = (await page.locator('.settings-secret').textContent())!.trim();
  const authenticator = new TOTP({ secret: Secret.fromBase32(secret) });
  await page.getByLabel('Code from the app').fill(authenticator.generate());
  await page.getByLabel('Current password').fill('not the password');
  await page.getByRole('button', { name: 'Turn on' }).click();
  const refused = page.locator('.field-error', { hasText: 'The password is not right' });
  await refused.waitFor();
  assert.equal(
    await refused.evaluate((error) => error.closest('.field')?.querySelector('input')?.type),
    'password',
    "the API's sentence stands beside the password",
  );
  await checkScreen(page, 'settings-two-factor');

  await page.getByLabel('Current password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByText('Your recovery codes').first().waitFor();

  await openSection(page, app, 'sessions');
  const current = page.locator('.settings-row', { hasText: 'This browser' });
  await current.waitFor();
  assert.equal(await current.getByRole('button', { name: 'Sign out' }).count(), 0, 'the current session is not signed out from here');
});

for (const { name, viewport } of VIEWPORTS) {
  test(`every section at ${name} width, light and accessible`, async (t) => {
    const app = await startApp(t);
    const { accountId, http } = await app.createAccount('business');
    await http.post('/api/integrations', {
      type: 'slack',
      config: { webhook_url: 'https://hooks.slack.com/services/T0/B0/XXXX', channel: '#deals' },
    });
    const { page } = await signedInDashboard(t, app, { role: 'owner', accountId, viewport });
    if (viewport === PHONE) {
      await openScreen(page, app, '/app/settings', 'Settings');
      await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Members' }).waitFor();
      await checkScreen(page, `settings-index-${name}`);
    }
    for (const section of [
      'profile',
      'two-factor',
      'sessions',
      'members',
      'api-keys',
      'branding',
      'integrations',
      'webhooks',
      'payments',
      'agreements',
      'sharing',
      'audit-log',
    ]) {
      await openSection(page, app, section);
      if (section === 'payments') await page.getByText('Payments are not set up on this server.').waitFor();
      await checkScreen(page, `settings-${section}-${name}`);
    }
    assert.ok(viewport === DESKTOP || viewport === PHONE);
  });
}

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
