import assert from 'node:assert/strict';
import { after, test, type TestContext } from 'node:test';
import { TOTP, URI } from 'otpauth';
import { startApp, type TestApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, DESKTOP, openSection, PHONE, signedInDashboard } from '../helpers/dashboard.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';
import { startSmtp, type ReceivedMail } from '../helpers/smtp.js';

after(closeBrowser);

const CONFIRM = '/api/auth/email-change/confirm';

function confirmTokenIn(mail: ReceivedMail): string {
  const match = /\/confirm-email\?token=([0-9A-Za-z]{43})/.exec(mail.text);
  if (!match) throw new Error(`no /confirm-email link in: ${mail.text}`);
  return match[1]!;
}

async function withMail(t: TestContext) {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId, http } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, 'owner');
  return { smtp, app, accountId, http, person };
}

const confirmed = async (app: TestApp, token: string) => (await createSessionClient(app.url).post(CONFIRM, { token })).status;

test('a person moves their sign-in to a new address: its link makes the change, the old address is told and signs in no more', async (t) => {
  const { smtp, app, person } = await withMail(t);
  // A sign-in link mailed to the old address before the change, as someone reading that mailbox would hold.
  assert.equal((await createSessionClient(app.url).post('/api/auth/magic-link', { email: person.email })).status, 202);
  const overheard = /\/sign-in\/link\?token=([0-9A-Za-z]{43})/.exec((await smtp.waitFor(person.email)).text)![1]!;

  const asked = await person.client.post('/api/me/email', { email: 'Ada.New@Example.org', currentPassword: TEST_PASSWORD });
  assert.equal(asked.status, 202, JSON.stringify(asked.body));
  assert.match(asked.body.message, /ada\.new@example\.org/);
  assert.equal((await person.client.get('/api/me')).body.user.email, person.email, 'nothing changes before the link is opened');

  const link = await smtp.waitFor('ada.new@example.org');
  assert.match(link.subject, /Confirm your new linkvault sign-in address/);
  const token = confirmTokenIn(link);
  const page = await fetch(`${app.url}/confirm-email?token=${token}`);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /ada\.new@example\.org/, 'the page names the new address');
  assert.match(html, /data-api="\/api\/auth\/email-change\/confirm"/, 'a button spends the link, not the visit');

  assert.equal(await confirmed(app, token), 204);
  assert.equal(await confirmed(app, token), 404, 'the link works once');
  assert.equal((await fetch(`${app.url}/confirm-email?token=${token}`)).status, 404, 'its page says it cannot be used');

  const me = await person.client.get('/api/me');
  assert.equal(me.status, 200, 'the session that asked stays');
  assert.equal(me.body.user.email, 'ada.new@example.org');
  const notice = await smtp.waitFor(person.email, (mail) => /sign-in address was changed/.test(mail.subject));
  assert.match(notice.text, /ada\.new@example\.org/);

  const signIn = (email: string) => createSessionClient(app.url).post('/api/auth/sign-in', { email, password: TEST_PASSWORD });
  assert.equal((await signIn(person.email)).status, 401, 'the old address signs in no more');
  assert.equal((await signIn('ada.new@example.org')).status, 200);
  const overheardUsed = await createSessionClient(app.url).post('/api/auth/magic-link/confirm', { token: overheard });
  assert.equal(overheardUsed.status, 404, 'a link mailed to the old address went with it');

  const audit = await app.runtime.database.db
    .selectFrom('audit_log')
    .select(['action', 'details'])
    .where('action', 'in', ['user.email_change_requested', 'user.email_changed'])
    .orderBy('id')
    .execute();
  assert.deepEqual(
    audit.map((entry) => [entry.action, JSON.parse(entry.details)]),
    [
      ['user.email_change_requested', { to: 'ada.new@example.org' }],
      ['user.email_changed', { from: person.email, to: 'ada.new@example.org' }],
    ],
  );
});

test('an e-mail change is proved like a sign-in: the password, the two-factor code; an API key, a taken or the same address are refused', async (t) => {
  const { app, accountId, http, person } = await withMail(t);
  const ask = (body: object) => person.client.post('/api/me/email', { email: 'elsewhere@example.org', ...body });

  const missing = await ask({});
  assert.equal(missing.status, 422);
  assert.equal(missing.body.error, 'Enter your current password');
  const wrong = await ask({ currentPassword: 'not the password' });
  assert.equal(wrong.status, 422);
  assert.equal(wrong.body.error, 'The current password is not right');

  const colleague = await signedInPerson(app, accountId, 'member');
  const taken = await ask({ email: colleague.email.toUpperCase(), currentPassword: TEST_PASSWORD });
  assert.equal(taken.status, 409);
  assert.match(taken.body.error, /has a linkvault sign-in of its own/);
  assert.equal((await ask({ email: person.email, currentPassword: TEST_PASSWORD })).status, 409, 'the address already theirs');
  assert.equal((await ask({ email: 'a,b@example.org', currentPassword: TEST_PASSWORD })).status, 400, 'not an address mail can go to');
  assert.equal((await http.post('/api/me/email', { email: 'key@example.org' })).status, 403, 'an API key has no sign-in to move');

  // With two-factor on, the code is asked for too.
  const started = await person.client.post('/api/me/two-factor');
  const authenticator = URI.parse(started.body.otpauthUri as string) as TOTP;
  assert.equal((await person.client.post('/api/me/two-factor/confirm', { code: authenticator.generate(), password: TEST_PASSWORD })).status, 200);
  const noCode = await ask({ currentPassword: TEST_PASSWORD });
  assert.equal(noCode.status, 422);
  assert.match(noCode.body.error, /authenticator app/);
  const badCode = await ask({ currentPassword: TEST_PASSWORD, code: '000000' });
  assert.equal(badCode.status, 422);
  assert.equal(badCode.body.error, 'The two-factor code is not right');
  assert.equal((await ask({ currentPassword: TEST_PASSWORD, code: '111111' })).status, 422);
  // Five failures in 15 minutes, as at sign-in: the next try is refused before it is checked.
  assert.equal((await ask({ currentPassword: TEST_PASSWORD, code: authenticator.generate() })).status, 429);

  // A person without a password (added by the command line, signed in by e-mailed links) proves it by the link alone.
  const { signInLink } = await app.runtime.services.auth.addPersonByOperator({
    email: 'linkonly@example.org',
    accountEmail: (await app.runtime.database.db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirstOrThrow()).email,
    role: 'member',
  });
  const linkOnly = createSessionClient(app.url);
  assert.equal((await linkOnly.post('/api/auth/magic-link/confirm', { token: new URL(signInLink).searchParams.get('token') })).status, 200);
  assert.equal((await linkOnly.post('/api/me/email', { email: 'linkonly.new@example.org' })).status, 202);
});

test('a newer request spends the older link; a link to an address someone took meanwhile is refused; five links an hour', async (t) => {
  const { smtp, app, accountId, person } = await withMail(t);
  const ask = (email: string) => person.client.post('/api/me/email', { email, currentPassword: TEST_PASSWORD });
  assert.equal((await ask('first@example.org')).status, 202);
  const first = confirmTokenIn(await smtp.waitFor('first@example.org'));
  assert.equal((await ask('second@example.org')).status, 202);
  const second = confirmTokenIn(await smtp.waitFor('second@example.org'));
  assert.equal(await confirmed(app, first), 404, 'the older link went with the newer request');

  // second@ joins as a person of its own before the link is opened.
  await app.runtime.services.users.create({ email: 'second@example.org', name: 'Second', password: TEST_PASSWORD });
  const late = await createSessionClient(app.url).post(CONFIRM, { token: second });
  assert.equal(late.status, 409);
  assert.match(late.body.error, /second@example\.org has a linkvault sign-in of its own/);
  assert.equal((await person.client.get('/api/me')).body.user.email, person.email);
  assert.equal((await app.runtime.services.members.accountsOf((await app.runtime.services.users.byEmail(person.email))!.id))[0]!.id, accountId);

  // Each link goes to an address of the person's choosing: five an hour, then 429 until the hour is over.
  for (const n of [3, 4, 5]) assert.equal((await ask(`address-${n}@example.org`)).status, 202);
  const sixth = await ask('address-6@example.org');
  assert.equal(sixth.status, 429);
  assert.match(sixth.body.error, /At most 5 new addresses an hour/);
  assert.ok(Number(sixth.headers.get('retry-after')) > 3000, 'Retry-After: the rest of the hour');
});

for (const viewport of [DESKTOP, PHONE]) {
  test(`profile at ${viewport.width} px: a new sign-in address is asked for, its link opened in the browser, and the profile shows it`, async (t) => {
    const smtp = await startSmtp(t);
    const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
    const { page } = await signedInDashboard(t, app, { role: 'member', viewport });
    await openSection(page, app, 'profile');
    const form = page.getByRole('region', { name: 'Sign-in address' });
    await form.getByLabel('New e-mail address').fill('taken@example.org');
    await app.runtime.services.users.create({ email: 'taken@example.org', name: 'Taken', password: TEST_PASSWORD });
    await form.getByLabel('Your password').fill(TEST_PASSWORD);
    await form.getByRole('button', { name: 'E-mail me a link' }).click();
    await form.locator('.field-error', { hasText: 'taken@example.org has a linkvault sign-in of its own' }).waitFor();
    assert.equal(await form.getByLabel('New e-mail address').getAttribute('aria-invalid'), 'true');

    const address = `moved-${viewport.width}@example.org`;
    await form.getByLabel('New e-mail address').fill(address);
    await form.getByRole('button', { name: 'E-mail me a link' }).click();
    await form.getByRole('status').getByText(`A link is on its way to ${address}`).waitFor();
    assert.equal(await form.getByLabel('Your password').inputValue(), '', 'the password is not kept in the form');
    await checkScreen(page, `settings-profile-email-sent-${viewport.width}`);

    await page.goto(`${app.url}/confirm-email?token=${confirmTokenIn(await smtp.waitFor(address))}`);
    await page.getByText(address).first().waitFor();
    await checkScreen(page, `confirm-email-${viewport.width}`);
    await page.getByRole('button', { name: 'Use this address' }).click();
    await page.getByRole('heading', { name: 'Address changed' }).waitFor();
    await page.getByRole('link', { name: 'Open linkvault' }).click();
    await openSection(page, app, 'profile');
    await page.getByText(`You sign in as ${address}.`).waitFor();
  });
}
