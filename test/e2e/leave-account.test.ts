import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, DESKTOP, openSection, PHONE, signedInDashboard } from '../helpers/dashboard.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';

after(closeBrowser);

test('a person leaves an account by themselves: their sessions and keys in it end, those elsewhere stay, and it is audited', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  const key = (await admin.client.post('/api/api-keys', { name: 'made before leaving' })).body.api_key.key as string;
  assert.equal((await app.http(key).get('/api/links')).status, 200);
  // The same person in a second account, signed in there too.
  const other = await app.createAccount('business');
  await app.runtime.services.members.join(admin.userId, other.accountId, 'member');
  const elsewhere = createSessionClient(app.url);
  assert.equal((await elsewhere.post('/api/auth/sign-in', { email: admin.email, password: TEST_PASSWORD })).status, 200);
  const switched = await elsewhere.post('/api/auth/switch-account', { accountId: other.accountId });
  assert.equal(switched.status, 200, JSON.stringify(switched.body));

  assert.equal((await admin.client.delete('/api/me/membership')).status, 204);
  assert.equal((await admin.client.get('/api/me')).status, 401, 'this session ended with the membership');
  assert.equal((await app.http(key).get('/api/links')).status, 401, 'a key they made there is revoked');
  const stays = await elsewhere.get('/api/me');
  assert.equal(stays.status, 200, 'their session in the other account stays');
  assert.deepEqual(
    stays.body.accounts.map((account: { id: number }) => account.id),
    [other.accountId],
  );
  const people = (await owner.client.get('/api/members')).body.members as Array<{ userId: number }>;
  assert.ok(!people.some((person) => person.userId === admin.userId), 'no longer listed');

  const audit = await app.runtime.database.db
    .selectFrom('audit_log')
    .select(['action', 'details', 'actor_id'])
    .where('account_id', '=', accountId)
    .where('action', 'in', ['member.left', 'api_key.revoked'])
    .orderBy('id')
    .execute();
  assert.deepEqual(
    audit.map((entry) => [entry.action, entry.actor_id]),
    [
      ['member.left', admin.userId],
      ['api_key.revoked', admin.userId],
    ],
  );
  assert.deepEqual(JSON.parse(audit[0]!.details), { role: 'admin' });

  assert.equal((await http.delete('/api/me/membership')).status, 403, 'an API key is no person');
});

test('the last owner cannot leave; once another person is owner, they can', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const refused = await owner.client.delete('/api/me/membership');
  assert.equal(refused.status, 422);
  assert.match(refused.body.error, /at least one owner/);
  assert.equal((await owner.client.get('/api/me')).status, 200, 'nothing ended');

  const next = await signedInPerson(app, accountId, 'member');
  assert.equal((await owner.client.patch(`/api/members/${next.userId}`, { role: 'owner' })).status, 200);
  assert.equal((await owner.client.delete('/api/me/membership')).status, 204);
  assert.equal((await next.client.get('/api/me')).body.role, 'owner');
});

for (const viewport of [DESKTOP, PHONE]) {
  test(`profile at ${viewport.width} px: a member leaves the account after confirming, and lands on sign-in`, async (t) => {
    const app = await startApp(t);
    const { page, client } = await signedInDashboard(t, app, { role: 'member', viewport });
    await openSection(page, app, 'profile');
    const account = (await client.get('/api/me')).body.account.name as string;
    await page.getByRole('button', { name: `Leave ${account}` }).click();
    const dialog = page.getByRole('dialog', { name: `Leave ${account}?` });
    await dialog.waitFor();
    await checkScreen(page, `settings-profile-leave-${viewport.width}`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await client.get('/api/me')).status, 200, 'cancelled: still a member');

    await page.getByRole('button', { name: `Leave ${account}` }).click();
    await dialog.getByRole('button', { name: 'Leave', exact: true }).click();
    await page.waitForURL(`${app.url}/sign-in`);
    assert.equal((await client.get('/api/me')).status, 401);
  });
}
