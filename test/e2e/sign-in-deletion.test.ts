import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { startSmtp } from '../helpers/smtp.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, DESKTOP, openSection, PHONE, signedInDashboard } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';

after(closeBrowser);

test('a person deletes their sign-in: they leave every account, their keys and invitations end with them, their links stay; never as the last owner', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const first = await app.createAccount('business');
  const second = await app.createAccount('business');
  const person = await signedInPerson(app, first.accountId, 'member');
  await app.runtime.services.members.join(person.userId, second.accountId, 'admin');
  const secondOwner = await signedInPerson(app, second.accountId, 'owner');

  const theirLink = await createLink(person.client, 'their notes', 'notes.txt');
  assert.equal((await person.client.post('/api/auth/switch-account', { accountId: second.accountId })).status, 200);
  const theirKey = app.http((await person.client.post('/api/api-keys', { name: 'their script' })).body.api_key.key);
  assert.equal((await theirKey.get('/api/links')).status, 200);
  assert.equal((await person.client.post('/api/invitations', { email: 'their.guest@example.net', role: 'member' })).status, 201);

  const deletion = (client: typeof person.client, body: Record<string, string>) => client.request('DELETE', '/api/me', body);
  assert.equal((await second.http.request('DELETE', '/api/me', {})).status, 403, 'a signed-in person, not a key');
  const unproved = await deletion(person.client, {});
  assert.equal(unproved.status, 422);
  assert.equal(unproved.body.error, 'Enter your current password');

  const soleOwner = await signedInPerson(app, (await app.createAccount('business')).accountId, 'owner');
  await app.runtime.services.members.join(soleOwner.userId, first.accountId, 'member');
  const refused = await deletion(soleOwner.client, { currentPassword: TEST_PASSWORD });
  assert.equal(refused.status, 422);
  assert.match(refused.body.error, /^You are the only owner of owner\d+-\w+@example\.com: make someone else owner, or delete the account, first$/);
  assert.equal((await soleOwner.client.get('/api/me')).status, 200, 'refused, nothing changed');

  const deleted = await deletion(person.client, { currentPassword: TEST_PASSWORD });
  assert.equal(deleted.status, 204, JSON.stringify(deleted.body));
  assert.equal((await person.client.get('/api/me')).status, 401);
  const again = await createSessionClient(app.url).post('/api/auth/sign-in', { email: person.email, password: TEST_PASSWORD });
  assert.equal(again.status, 401, 'no sign-in is left');
  assert.equal((await theirKey.get('/api/links')).status, 401, 'keys they made are revoked');
  const invitations = await secondOwner.client.get('/api/invitations');
  assert.deepEqual(
    invitations.body.invitations.map((invitation: { email: string }) => invitation.email),
    [],
    'their invitations are withdrawn',
  );
  assert.equal((await first.http.get(`/api/links/${theirLink}`)).status, 200, 'the links they made stay with the account');

  const notice = await smtp.waitFor(person.email, (mail) => mail.subject === 'Your linkvault sign-in was deleted');
  assert.match(notice.text, /If you didn’t do this, tell an owner of your accounts right away/);

  const left = await app.runtime.database.db
    .selectFrom('audit_log')
    .select(['account_id'])
    .where('action', '=', 'member.left')
    .where('target_id', '=', String(person.userId))
    .orderBy('account_id')
    .execute();
  assert.deepEqual(
    left.map((entry) => entry.account_id),
    [first.accountId, second.accountId],
    'each account records their leaving',
  );
});

for (const viewport of [DESKTOP, PHONE]) {
  test(`deleting one's sign-in at ${viewport.width} px: asked for the password, then the sign-in page`, async (t) => {
    const app = await startApp(t);
    const { accountId } = await app.createAccount('business');
    await signedInPerson(app, accountId, 'owner');
    const { page, client, email } = await signedInDashboard(t, app, { role: 'member', accountId, viewport });
    await openSection(page, app, 'profile');
    const section = page.getByRole('region', { name: 'Delete your sign-in' });
    const dialog = page.getByRole('dialog');
    await section.getByLabel('Your password').fill('not the password');
    await section.getByRole('button', { name: 'Delete my sign-in' }).click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await client.get('/api/me')).status, 200, 'nothing happens without the confirmation');
    await section.getByRole('button', { name: 'Delete my sign-in' }).click();
    await dialog.getByRole('button', { name: 'Delete my sign-in' }).click();
    await section.getByText('The current password is not right').waitFor();
    await checkScreen(page, `settings-profile-delete-${viewport.width}`);
    await section.getByLabel('Your password').fill(TEST_PASSWORD);
    await section.getByRole('button', { name: 'Delete my sign-in' }).click();
    await dialog.getByRole('button', { name: 'Delete my sign-in' }).click();
    await page.waitForURL(/\/sign-in/);
    assert.equal((await client.get('/api/me')).status, 401);
    assert.equal((await createSessionClient(app.url).post('/api/auth/sign-in', { email, password: TEST_PASSWORD })).status, 401);
  });
}
