import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TOTP, URI } from 'otpauth';
import { startApp, startReplica, type TestApp } from '../helpers/app.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD, type SessionClient } from '../helpers/people.js';
import { runCli } from '../helpers/process.js';
import { startSmtp } from '../helpers/smtp.js';

/** The code an authenticator app would show now, or one step earlier / later. */
function codeFrom(otpauthUri: string, stepOffset = 0): string {
  const totp = URI.parse(otpauthUri) as TOTP;
  return totp.generate({ timestamp: Date.now() + stepOffset * 30_000 });
}

async function enrolled(app: TestApp, role: 'owner' | 'member' = 'owner') {
  const { accountId, email: accountEmail } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, role);
  const started = await person.client.post('/api/me/two-factor');
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const { otpauthUri, qrCodeSvg } = started.body as { otpauthUri: string; qrCodeSvg: string };
  assert.match(otpauthUri, /^otpauth:\/\/totp\/linkvault:.+\?.*secret=[A-Z2-7]+/);
  assert.match(qrCodeSvg, /^<svg[\s\S]*<\/svg>\s*$/);
  const confirmed = await person.client.post('/api/me/two-factor/confirm', { code: codeFrom(otpauthUri), password: TEST_PASSWORD });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  const { recoveryCodes } = confirmed.body as { recoveryCodes: string[] };
  return { ...person, accountId, accountEmail, otpauthUri, recoveryCodes };
}

/** The token of the one-time sign-in link the CLI prints (`users create` for a person already in the account). */
async function magicLinkTokenOf(app: TestApp, person: { email: string; accountEmail: string }): Promise<string> {
  const { signInLink } = await app.runtime.services.auth.addPersonByOperator({
    email: person.email,
    accountEmail: person.accountEmail,
    role: 'owner',
  });
  return new URL(signInLink).searchParams.get('token')!;
}

async function signIn(app: Pick<TestApp, 'url'>, email: string, code?: string): Promise<{ status: number; headers: Headers; client: SessionClient }> {
  const client = createSessionClient(app.url);
  const answer = await client.post('/api/auth/sign-in', { email, password: TEST_PASSWORD, ...(code === undefined ? {} : { code }) });
  return { status: answer.status, headers: answer.headers, client };
}

test('two-factor: enrol, confirm, then sign-in asks for the code; a code works once; recovery codes work once', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const first = await signedInPerson(app, accountId, 'admin');
  const other = createSessionClient(app.url);
  assert.equal((await other.post('/api/auth/sign-in', { email: first.email, password: TEST_PASSWORD })).status, 200);

  const wrongBefore = await first.client.post('/api/me/two-factor/confirm', { code: '123456' });
  assert.equal(wrongBefore.status, 409, 'nothing to confirm before enrolment starts');
  const started = await first.client.post('/api/me/two-factor');
  const { otpauthUri } = started.body as { otpauthUri: string };
  const wrong = await first.client.post('/api/me/two-factor/confirm', {
    code: '000000' === codeFrom(otpauthUri) ? '111111' : '000000',
    password: TEST_PASSWORD,
  });
  assert.equal(wrong.status, 400);
  // A session alone cannot put a factor on the person: their password is asked too, and a wrong one counts like a failed sign-in.
  const withoutPassword = await first.client.post('/api/me/two-factor/confirm', { code: codeFrom(otpauthUri) });
  assert.equal(withoutPassword.status, 400);
  assert.match(withoutPassword.body.error, /current password/);
  const wrongPassword = await first.client.post('/api/me/two-factor/confirm', { code: codeFrom(otpauthUri), password: 'not the password' });
  assert.equal(wrongPassword.status, 422);
  assert.equal(wrongPassword.body.error, 'The password is not right');
  assert.equal((await first.client.get('/api/me')).body.user.twoFactor, false, 'still off');
  const confirmed = await first.client.post('/api/me/two-factor/confirm', { code: codeFrom(otpauthUri), password: TEST_PASSWORD });
  assert.equal(confirmed.status, 200);
  const { recoveryCodes } = confirmed.body as { recoveryCodes: string[] };
  assert.equal(recoveryCodes.length, 10);
  assert.equal(new Set(recoveryCodes).size, 10);
  assert.equal((await first.client.post('/api/me/two-factor')).status, 409, 'already on');

  assert.equal((await first.client.get('/api/me')).body.user.twoFactor, true, 'this session goes on');
  assert.equal((await other.get('/api/me')).status, 401, 'the other sessions ended');

  const noCode = await signIn(app, first.email);
  assert.equal(noCode.status, 401);
  assert.equal(noCode.headers.get('x-two-factor'), 'required');
  assert.equal((await signIn(app, first.email, '12345x')).status, 401);
  // The code that confirmed enrolment was spent; the next step's code is accepted, once.
  const next = codeFrom(otpauthUri, 1);
  const withCode = await signIn(app, first.email, next);
  assert.equal(withCode.status, 200);
  assert.equal((await signIn(app, first.email, next)).status, 401, 'a code is accepted once');

  const recovery = recoveryCodes[0]!;
  assert.equal((await signIn(app, first.email, recovery.toUpperCase())).status, 200, 'a recovery code, in any case');
  assert.equal((await signIn(app, first.email, recovery)).status, 401, 'a recovery code works once');

  // Nothing secret in what the API shows of the person or the log of changes.
  const secret = new URL(otpauthUri).searchParams.get('secret')!;
  const shown = JSON.stringify([(await first.client.get('/api/me')).body, (await first.client.get('/api/audit-log?limit=100')).body]);
  for (const value of [secret, ...recoveryCodes, first.client.sessionId!]) assert.ok(!shown.includes(value), 'no secret shown');
  assert.match(shown, /two_factor\.enabled/);
});

test('two-factor: a code is accepted once across replicas: the step it spent is kept with the person, not in one process', async (t) => {
  const app = await startApp(t);
  const replica = await startReplica(app);
  const person = await enrolled(app);
  const code = codeFrom(person.otpauthUri, 1);
  assert.equal((await signIn(app, person.email, code)).status, 200);
  const replayed = await signIn({ url: replica.url }, person.email, code);
  assert.equal(replayed.status, 401, 'the same code on another replica');
});

test('two-factor: a magic link asks for the code and can be retried with it', async (t) => {
  const app = await startApp(t);
  const person = await enrolled(app);
  const token = await magicLinkTokenOf(app, person);
  const browser = createSessionClient(app.url);
  const bare = await browser.post('/api/auth/magic-link/confirm', { token });
  assert.equal(bare.status, 401);
  assert.equal(bare.headers.get('x-two-factor'), 'required');
  const withCode = await browser.post('/api/auth/magic-link/confirm', { token, code: codeFrom(person.otpauthUri, 1) });
  assert.equal(withCode.status, 200, JSON.stringify(withCode.body));
  assert.equal((await browser.post('/api/auth/magic-link/confirm', { token, code: codeFrom(person.otpauthUri, -1) })).status, 404, 'spent');
});

test('two-factor: a person without a password sets it up only within ten minutes of signing in, which switching accounts does not renew', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const first = await app.createAccount('business');
  const second = await app.createAccount('business');
  const person = { email: `no-password-${first.accountId}@example.com`, accountEmail: first.email };
  const browser = createSessionClient(app.url);
  assert.equal((await browser.post('/api/auth/magic-link/confirm', { token: await magicLinkTokenOf(app, person) })).status, 200);
  const user = await app.runtime.services.users.byEmail(person.email);
  await app.runtime.services.members.join(user!.id, second.accountId, 'member');
  assert.equal((await browser.get('/api/me')).body.user.hasPassword, false);
  const started = await browser.post('/api/me/two-factor');
  assert.equal(started.status, 200, 'just signed in');
  const { otpauthUri } = started.body as { otpauthUri: string };
  const codeAtNow = () => (URI.parse(otpauthUri) as TOTP).generate({ timestamp: now });

  now += 11 * 60_000;
  assert.equal((await browser.post('/api/auth/switch-account', { accountId: second.accountId })).status, 200);
  const late = await browser.post('/api/me/two-factor/confirm', { code: codeAtNow() });
  assert.equal(late.status, 403, 'a session taken from the person later cannot put a factor on them');
  assert.match(late.body.error, /^Sign in again to set up two-factor sign-in: without a password, it needs a sign-in from the last 10 minutes/);
  assert.equal((await browser.post('/api/me/two-factor')).status, 403, 'nor start over');
  assert.equal((await browser.get('/api/me')).body.user.twoFactor, false);

  assert.equal((await browser.post('/api/auth/magic-link/confirm', { token: await magicLinkTokenOf(app, person) })).status, 200);
  const again = (await browser.post('/api/me/two-factor')).body as { otpauthUri: string };
  const confirmed = await browser.post('/api/me/two-factor/confirm', {
    code: (URI.parse(again.otpauthUri) as TOTP).generate({ timestamp: now }),
  });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.equal((await browser.get('/api/me')).body.user.twoFactor, true);
});

test('two-factor: wrong codes with a magic link count like failed sign-ins (429 past five)', async (t) => {
  const app = await startApp(t);
  const person = await enrolled(app);
  const token = await magicLinkTokenOf(app, person);
  const browser = createSessionClient(app.url);
  const wrong = codeFrom(person.otpauthUri) === '000000' ? '111111' : '000000';
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 6; attempt++) statuses.push((await browser.post('/api/auth/magic-link/confirm', { token, code: wrong })).status);
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
  const blocked = await browser.post('/api/auth/magic-link/confirm', { token, code: codeFrom(person.otpauthUri, 1) });
  assert.equal(blocked.status, 429, 'the right code waits out the window too');
  assert.ok(Number(blocked.headers.get('retry-after')) > 0);
});

test('two-factor: turned off with a recovery code; wrong codes count like failed sign-ins (429 past five, audited), so a stolen session cannot guess them', async (t) => {
  const app = await startApp(t);
  const first = await enrolled(app);
  const wrongOfFirst = codeFrom(first.otpauthUri) === '000000' ? '111111' : '000000';
  assert.equal((await first.client.request('DELETE', '/api/me/two-factor', { code: wrongOfFirst })).status, 400);
  assert.equal((await first.client.request('DELETE', '/api/me/two-factor', { code: first.recoveryCodes[1]! })).status, 204);
  assert.equal((await signIn(app, first.email)).status, 200, 'off: the password alone signs in');
  assert.equal((await first.client.request('DELETE', '/api/me/two-factor', { code: first.recoveryCodes[2]! })).status, 409);

  const person = await enrolled(app);
  const wrong = codeFrom(person.otpauthUri) === '000000' ? '111111' : '000000';
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 6; attempt++) statuses.push((await person.client.request('DELETE', '/api/me/two-factor', { code: wrong })).status);
  assert.deepEqual(statuses, [400, 400, 400, 400, 400, 429]);
  const blocked = await person.client.request('DELETE', '/api/me/two-factor', { code: person.recoveryCodes[0]! });
  assert.equal(blocked.status, 429, 'a right code waits out the window too, and is not spent');
  assert.ok(Number(blocked.headers.get('retry-after')) > 0);
  assert.equal((await signIn(app, person.email, codeFrom(person.otpauthUri, 1))).status, 429, 'the count is the sign-in one');
  const entries = (await person.client.get<{ entries: { action: string; details: { reason?: string } }[] }>('/api/audit-log')).body.entries;
  const failures = entries.filter((entry) => entry.action === 'sign_in.failed' && entry.details.reason === 'two-factor code to turn it off');
  assert.equal(failures.length, 5, 'each wrong code is in the audit log');
  assert.equal((await person.client.get<{ user: { twoFactor: boolean } }>('/api/me')).body.user.twoFactor, true, 'still on');
});

test('two-factor: accepting an invitation as a person who signs in asks for their code, and counts each try', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const person = await enrolled(app);
  const other = await app.createAccount('business');
  const invitationOf = async (email: string, role: 'admin' | 'member') => {
    assert.equal((await other.http.post('/api/invitations', { email, role })).status, 201);
    return /\/invite\/([0-9A-Za-z]{43})/.exec((await smtp.waitFor(email)).text)![1]!;
  };
  const token = await invitationOf(person.email, 'admin');
  const browser = createSessionClient(app.url);
  const accept = (body: Record<string, string>) => browser.post('/api/invitations/accept', { token, ...body });

  const noCode = await accept({ password: TEST_PASSWORD });
  assert.equal(noCode.status, 401);
  assert.equal(noCode.headers.get('x-two-factor'), 'required');
  assert.equal((await accept({ password: TEST_PASSWORD, code: '12345x' })).status, 401);
  const joined = await accept({ password: TEST_PASSWORD, code: codeFrom(person.otpauthUri, 1) });
  assert.equal(joined.status, 200, JSON.stringify(joined.body));
  assert.equal(joined.body.account.id, other.accountId);
  assert.equal(joined.body.role, 'admin');

  // Guessing someone's password through an invitation is throttled like sign-in.
  const elsewhere = await signedInPerson(app, (await app.createAccount('business')).accountId, 'owner');
  const second = await invitationOf(elsewhere.email, 'member');
  const guesses: number[] = [];
  for (let attempt = 0; attempt < 6; attempt++) {
    guesses.push((await browser.post('/api/invitations/accept', { token: second, password: `wrong guess ${attempt}` })).status);
  }
  assert.deepEqual(guesses, [401, 401, 401, 401, 401, 429]);
  const log = await elsewhere.client.get('/api/audit-log?action=sign_in.failed&limit=100');
  assert.equal(log.body.entries.length, 5, 'each wrong password is a failed sign-in in the audit log');
});

test('REQUIRE_2FA: owners and admins enrol before anything else; members are not forced', async (t) => {
  const app = await startApp(t, { env: { REQUIRE_2FA: '1' } });
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const refused = await owner.client.get('/api/links');
  assert.equal(refused.status, 403);
  assert.match(refused.body.error, /two-factor/);
  assert.equal((await owner.client.get('/api/me')).status, 200, 'who am I stays open');
  const started = await owner.client.post('/api/me/two-factor');
  assert.equal(started.status, 200);
  const confirmed = await owner.client.post('/api/me/two-factor/confirm', { code: codeFrom(started.body.otpauthUri), password: TEST_PASSWORD });
  assert.equal(confirmed.status, 200);
  assert.equal((await owner.client.get('/api/links')).status, 200);

  const member = await signedInPerson(app, accountId, 'member');
  assert.equal((await member.client.get('/api/links')).status, 200);
});

test("REQUIRE_2FA: a key is judged by its maker's second factor; a key of the command line is the operator's", async (t) => {
  const app = await startApp(t, { env: { REQUIRE_2FA: '1' } });
  const { accountId, http: commandLineKey } = await app.createAccount('business');
  const people = [await signedInPerson(app, accountId, 'owner'), await signedInPerson(app, accountId, 'admin')];
  for (const person of people) {
    const uri = (await person.client.post('/api/me/two-factor')).body.otpauthUri as string;
    assert.equal((await person.client.post('/api/me/two-factor/confirm', { code: codeFrom(uri), password: TEST_PASSWORD })).status, 200);
    const key = app.http((await person.client.post('/api/api-keys', { name: 'script' })).body.api_key.key);
    assert.equal((await key.get('/api/links')).status, 200, 'with two-factor on, their key works');

    assert.equal((await person.client.request('DELETE', '/api/me/two-factor', { code: codeFrom(uri, 1) })).status, 204);
    const refused = await key.get('/api/links');
    assert.equal(refused.status, 403, 'turning it off stops their key at once');
    assert.match(refused.body.error, /^This key's maker must turn on two-factor sign-in first/);
    assert.equal((await key.post('/api/api-keys', { name: 'another' })).status, 403);
    assert.equal((await key.get('/api/me')).status, 200, 'who am I stays open');
  }
  assert.equal((await commandLineKey.get('/api/links')).status, 200);
});

test('linkvault users reset-2fa turns it off for a person who lost their phone', async (t) => {
  const app = await startApp(t);
  const person = await enrolled(app);
  const reset = await runCli(['users', 'reset-2fa', '--email', person.email.toUpperCase()], app.env);
  assert.equal(reset.code, 0, reset.stderr);
  assert.deepEqual(JSON.parse(reset.stdout), { ok: true });
  assert.equal((await signIn(app, person.email)).status, 200, 'the password alone signs in again');
  assert.equal((await signIn(app, person.email, person.recoveryCodes[0])).status, 200, 'an unneeded code is not looked at');
  const entries = (await person.client.get('/api/audit-log?action=two_factor.reset')).body.entries as Array<{ actor: { label: string } }>;
  assert.equal(entries.length, 1);
  assert.equal(entries[0]!.actor.label, 'command line');

  const unknown = await runCli(['users', 'reset-2fa', '--email', 'nobody@example.com'], app.env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /nobody@example.com not found/);
});

test('two-factor: confirmations sent together turn it on once; only the one that did answers recovery codes, and they work', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, 'owner');
  const { otpauthUri } = (await person.client.post('/api/me/two-factor')).body as { otpauthUri: string };
  // The codes of the step before, this one and the next: each is accepted once.
  const answers = await Promise.all(
    [-1, 0, 1].map((offset) => person.client.post('/api/me/two-factor/confirm', { code: codeFrom(otpauthUri, offset), password: TEST_PASSWORD })),
  );
  const confirmed = answers.filter((answer) => answer.status === 200);
  assert.equal(confirmed.length, 1, JSON.stringify(answers.map((answer) => [answer.status, answer.body])));
  const [recovery] = (confirmed[0]!.body as { recoveryCodes: string[] }).recoveryCodes;
  assert.equal((await signIn(app, person.email, recovery)).status, 200, 'the codes answered are the ones stored');
});
