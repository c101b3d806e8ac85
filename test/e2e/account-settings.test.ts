import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, DESKTOP, openSection, PHONE, signedInDashboard } from '../helpers/dashboard.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';

after(closeBrowser);

test('owners rename the account and change its address; an address another account has, or none, is refused; each change is audited', async (t) => {
  const app = await startApp(t);
  const { accountId, email } = await app.createAccount('business');
  const other = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');

  const before = await owner.client.get('/api/account');
  assert.equal(before.status, 200);
  assert.deepEqual({ ...before.body, createdAt: undefined }, { id: accountId, name: email, email, plan: 'business', createdAt: undefined });
  assert.equal((await admin.client.get('/api/account')).status, 403, 'owners only');
  assert.equal((await admin.client.patch('/api/account', { name: 'Taken over' })).status, 403);

  const renamed = await owner.client.patch('/api/account', { name: '  Acme Capital  ', email: 'Deals@Acme.example' });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  assert.equal(renamed.body.name, 'Acme Capital');
  assert.equal(renamed.body.email, 'deals@acme.example');
  assert.equal((await admin.client.get('/api/me')).body.account.name, 'Acme Capital', 'everyone in it sees the new name');

  const taken = await owner.client.patch('/api/account', { email: other.email });
  assert.equal(taken.status, 409);
  assert.equal(taken.body.error, `Another account has the address ${other.email}`);
  assert.equal((await owner.client.patch('/api/account', { email: 'a,b@example.org' })).status, 400);
  assert.equal((await owner.client.patch('/api/account', { name: '   ' })).status, 422);
  assert.equal((await owner.client.patch('/api/account', {})).status, 400, 'nothing to change');
  assert.equal((await owner.client.get('/api/account')).body.email, 'deals@acme.example', 'refused changes change nothing');

  // The operator's commands know the account by its new address.
  await app.runtime.services.accounts.setPlan('deals@acme.example', 'professional');
  assert.equal((await owner.client.get('/api/account')).body.plan, 'professional');

  const audit = await app.runtime.database.db
    .selectFrom('audit_log')
    .select(['details', 'actor_id'])
    .where('account_id', '=', accountId)
    .where('action', '=', 'account.updated')
    .execute();
  assert.equal(audit.length, 1, 'one entry, for the one change made');
  assert.equal(audit[0]!.actor_id, owner.userId);
  assert.deepEqual(JSON.parse(audit[0]!.details), {
    name: { from: null, to: 'Acme Capital' },
    email: { from: email, to: 'deals@acme.example' },
  });
});

for (const viewport of [DESKTOP, PHONE]) {
  test(`account settings at ${viewport.width} px: an owner renames the account and the header follows; an admin has no such section`, async (t) => {
    const app = await startApp(t);
    const { page, accountId } = await signedInDashboard(t, app, { role: 'owner', viewport });
    await openSection(page, app, 'account');
    const form = page.getByRole('region', { name: 'Account', exact: true });
    await form.getByLabel('Account name').fill('Northwind Partners');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The account was saved').waitFor();
    await page.locator('header').getByText('Northwind Partners').first().waitFor();
    await form.getByLabel('Account address').fill('x,y@example.org');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.locator('.field-error').waitFor();
    await checkScreen(page, `settings-account-${viewport.width}`);

    const admin = await signedInDashboard(t, app, { role: 'admin', accountId, viewport });
    await openSection(admin.page, app, 'profile');
    assert.equal(await admin.page.getByRole('link', { name: 'Account', exact: true }).count(), 0, 'not offered to an admin');
  });
}

for (const viewport of [DESKTOP, PHONE]) {
  test(`deleting the account at ${viewport.width} px: its name typed out and the password; then the sign-in page, and the session is gone`, async (t) => {
    const app = await startApp(t);
    const { page, client, email } = await signedInDashboard(t, app, { role: 'owner', viewport });
    await client.patch('/api/account', { name: 'Closing Ventures' });
    await openSection(page, app, 'account');
    const section = page.getByRole('region', { name: 'Delete this account' });
    const submit = section.getByRole('button', { name: 'Delete Closing Ventures for good' });
    await section.getByLabel('Type Closing Ventures to confirm').fill('Closing Venture');
    await section.getByLabel('Your password').fill('not the password');
    assert.ok(await submit.isDisabled(), 'not until the name is typed out');
    await section.getByLabel('Type Closing Ventures to confirm').fill('Closing Ventures');
    await submit.click();
    await section.getByText('The current password is not right').waitFor();
    await checkScreen(page, `settings-account-delete-${viewport.width}`);

    await section.getByLabel('Your password').fill(TEST_PASSWORD);
    await submit.click();
    await page.waitForURL(/\/sign-in/);
    assert.equal((await client.get('/api/me')).status, 401);
    const again = await createSessionClient(app.url).post('/api/auth/sign-in', { email, password: TEST_PASSWORD });
    assert.equal(again.status, 401, 'the sign-in of a person of no other account went with it');
  });
}
