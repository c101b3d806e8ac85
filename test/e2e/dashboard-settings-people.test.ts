import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, openSection, signedInDashboard } from '../helpers/dashboard.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';

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

test('members: invite by e-mail (listed as pending, withdrawn after confirmation)', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const { page } = await signedInDashboard(t, app, { role: 'owner', accountId });
  await signedInPerson(app, accountId, 'member');
  await openSection(page, app, 'members');
  await page.getByLabel('Role of Test member').waitFor();
  // An address no mail server takes: the API's sentence beside the address.
  await page.getByLabel('E-mail').fill('new.hire@intranet');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  const emailField = page.locator('.field', { has: page.getByLabel('E-mail') });
  await emailField.locator('.field-error', { hasText: 'not an e-mail address that can be used here' }).waitFor();
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

test("members as an admin: an owner's row offers nothing to change, and no role menu offers Owner", async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  await signedInPerson(app, accountId, 'owner');
  await signedInPerson(app, accountId, 'member');
  const { page } = await signedInDashboard(t, app, { role: 'admin', accountId });
  await openSection(page, app, 'members');
  const ownerRole = page.getByLabel('Role of Test owner');
  await ownerRole.waitFor();
  assert.equal(await ownerRole.isDisabled(), true);
  const ownerRow = page.locator('.settings-row', { has: ownerRole });
  assert.equal(await ownerRow.getByRole('button', { name: 'Remove' }).count(), 0);
  const memberRole = page.getByLabel('Role of Test member');
  assert.deepEqual(await memberRole.locator('option').allInnerTexts(), ['Member', 'Admin']);
  assert.deepEqual(await page.getByLabel('Role', { exact: true }).locator('option').allInnerTexts(), ['Member', 'Admin']);
  await checkScreen(page, 'settings-members-admin');
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

test('profile: a person turns off e-mail about views of their links, saved as it is switched and kept after a reload', async (t) => {
  const app = await startApp(t);
  const { page, client } = await signedInDashboard(t, app, { role: 'member' });
  await openSection(page, app, 'profile');
  const choice = page.getByLabel('E-mail me when someone views my links');
  assert.equal(await choice.isChecked(), true, 'on by default');
  const saved = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/me' && response.request().method() === 'PATCH');
  await choice.click();
  assert.equal((await saved).status(), 200);
  await page.getByText('You will not be e-mailed about views any more').waitFor();
  assert.equal((await client.get('/api/me')).body.user.viewAlerts, false);
  await page.reload();
  assert.equal(await page.getByLabel('E-mail me when someone views my links').isChecked(), false);
  await checkScreen(page, 'settings-profile-view-alerts');
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
  const status = page.getByRole('region', { name: 'Two-factor sign-in' }).locator('.chip').first();
  assert.equal(await status.innerText(), 'On', 'on while its recovery codes are shown');

  // Within the app (no reload), to another section and back, without having said the codes were saved.
  await page.getByRole('link', { name: 'Sessions', exact: true }).click();
  const current = page.locator('.settings-row', { hasText: 'This browser' });
  await current.waitFor();
  assert.equal(await current.getByRole('button', { name: 'Sign out' }).count(), 0, 'the current session is not signed out from here');
  await page.getByRole('link', { name: 'Two-factor sign-in', exact: true }).click();
  await page.getByRole('region', { name: 'Two-factor sign-in' }).getByText('On', { exact: true }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Set up two-factor sign-in' }).count(), 0, 'it is on, and offers no second set-up');
});
