import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp, testEnv } from '../helpers/app.js';
import { createHttpClient } from '../helpers/http.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';
import { runCli, startServerProcess } from '../helpers/process.js';

const DAY_MS = 86_400_000;

test('the session cookie: HttpOnly, SameSite=Lax, Path=/; __Host- and Secure behind https', async (t) => {
  const plain = await startApp(t);
  const { accountId } = await plain.createAccount('business');
  const person = await signedInPerson(plain, accountId, 'member');
  const answer = await fetch(`${plain.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: person.email, password: TEST_PASSWORD }),
  });
  const cookie = answer.headers.get('set-cookie')!;
  assert.match(cookie, /^lv_session=[0-9A-Za-z]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/);

  const secure = await startApp(t, { env: { PUBLIC_URL: 'https://share.example.com' } });
  const other = await secure.createAccount('business');
  const { users, members } = secure.runtime.services;
  const userId = await users.create({ email: 'secure@example.com', name: 'Secure', password: TEST_PASSWORD });
  await members.join(userId, other.accountId, 'owner');
  const secured = await fetch(`${secure.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'secure@example.com', password: TEST_PASSWORD }),
  });
  assert.match(secured.headers.get('set-cookie')!, /^__Host-lv_session=[0-9A-Za-z]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
});

test('sessions: listed with the current one marked, revoked one by one, ended by sign-out; a new id at sign-in and at an account switch', async (t) => {
  const app = await startApp(t);
  const first = await app.createAccount('business');
  const second = await app.createAccount('professional');
  const person = await signedInPerson(app, first.accountId, 'admin');
  await app.runtime.services.members.join(person.userId, second.accountId, 'member');
  const laptop = person.client;
  const phone = createSessionClient(app.url);
  await phone.post('/api/auth/sign-in', { email: person.email, password: TEST_PASSWORD });
  assert.notEqual(phone.sessionId, laptop.sessionId, 'each sign-in gets its own id');

  const listed = (await laptop.get('/api/sessions')).body.sessions as Array<{ id: string; current: boolean }>;
  assert.equal(listed.length, 2);
  assert.deepEqual(listed.map((session) => session.current).sort(), [false, true]);
  const phoneSession = listed.find((session) => !session.current)!;
  assert.ok(!JSON.stringify(listed).includes(laptop.sessionId!), 'the list names sessions by another id than the cookie');

  const before = laptop.sessionId!;
  const switched = await laptop.post('/api/auth/switch-account', { accountId: second.accountId });
  assert.equal(switched.status, 200);
  assert.equal(switched.body.account.id, second.accountId);
  assert.equal(switched.body.role, 'member');
  assert.notEqual(laptop.sessionId, before, 'a new id when rights change');
  const stale = createSessionClient(app.url);
  stale.setSession(before);
  assert.equal((await stale.get('/api/me')).status, 401, 'the old id no longer works');
  assert.equal((await laptop.post('/api/auth/switch-account', { accountId: 2147483000 })).status, 404, 'only one of the person’s own accounts');

  assert.equal((await laptop.delete(`/api/sessions/${phoneSession.id}`)).status, 204);
  assert.equal((await phone.get('/api/me')).status, 401);
  assert.equal((await laptop.delete(`/api/sessions/${phoneSession.id}`)).status, 404);

  assert.equal((await laptop.post('/api/auth/sign-out')).status, 204);
  assert.equal(laptop.sessionId, undefined, 'the cookie is cleared');
  const ended = createSessionClient(app.url);
  ended.setSession(switched.headers.get('set-cookie')!.split(';')[0]!.split('=')[1]);
  assert.equal((await ended.get('/api/me')).status, 401, 'and the session ended on the server');
});

test('sessions end after SESSION_IDLE_DAYS unused and SESSION_ABSOLUTE_DAYS after sign-in', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { env: { SESSION_IDLE_DAYS: '2', SESSION_ABSOLUTE_DAYS: '5' }, clock: () => now });
  const { accountId } = await app.createAccount('business');
  const idle = await signedInPerson(app, accountId, 'member');
  const busy = await signedInPerson(app, accountId, 'member');
  for (let day = 1; day <= 4; day++) {
    now += DAY_MS;
    assert.equal((await busy.client.get('/api/me')).status, 200, `used on day ${day}`);
  }
  assert.equal((await idle.client.get('/api/me')).status, 401, 'unused for more than two days');
  now += 1.5 * DAY_MS;
  assert.equal((await busy.client.get('/api/me')).status, 401, 'five days after sign-in, used or not');
});

test('switching accounts keeps the sign-in time and the absolute end: a session cannot be renewed by moving it', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { env: { SESSION_ABSOLUTE_DAYS: '5' }, clock: () => now });
  const first = await app.createAccount('business');
  const second = await app.createAccount('business');
  const person = await signedInPerson(app, first.accountId, 'admin');
  await app.runtime.services.members.join(person.userId, second.accountId, 'member');
  const [signedIn] = (await person.client.get('/api/sessions')).body.sessions as Array<{ createdAt: string; expiresAt: string }>;
  for (let day = 1; day <= 4; day++) {
    now += DAY_MS;
    const switched = await person.client.post('/api/auth/switch-account', { accountId: day % 2 === 1 ? second.accountId : first.accountId });
    assert.equal(switched.status, 200, `switched on day ${day}`);
    const maxAge = Number(/Max-Age=(\d+)/.exec(switched.headers.get('set-cookie') ?? '')?.[1]);
    assert.ok(maxAge <= (5 - day) * 86_400, `the cookie lasts until the first sign-in's end, not five days more (${maxAge} s on day ${day})`);
    const sessions = (await person.client.get('/api/sessions')).body.sessions as Array<{ createdAt: string }>;
    assert.deepEqual(
      sessions.map((session) => session.createdAt),
      [signedIn!.createdAt],
    );
  }
  now += 1.5 * DAY_MS;
  assert.equal((await person.client.get('/api/me')).status, 401, 'five days after sign-in, however often it moved');
});

test('rights: a role change applies on the next request; removal ends the person’s sessions in that account', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const person = await signedInPerson(app, accountId, 'admin');
  assert.equal((await person.client.get('/api/api-keys')).status, 200);
  assert.equal((await owner.client.patch(`/api/members/${person.userId}`, { role: 'member' })).status, 200);
  assert.equal((await person.client.get('/api/api-keys')).status, 403);
  assert.equal((await owner.client.delete(`/api/members/${person.userId}`)).status, 204);
  assert.equal((await person.client.get('/api/me')).status, 401);
  const again = await createSessionClient(app.url).post('/api/auth/sign-in', { email: person.email, password: TEST_PASSWORD });
  assert.equal(again.status, 403, 'no account left to work in');
});

test('CSRF: a change made with the session needs the token and our origin; reads need neither', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const { client } = await signedInPerson(app, accountId, 'owner');
  const body = { name: 'from a form' };
  assert.equal((await client.request('POST', '/api/api-keys', body, { 'x-csrf-token': '' })).status, 403, 'no token');
  assert.equal((await client.request('POST', '/api/api-keys', body, { 'x-csrf-token': 'forged' })).status, 403, 'a wrong token');
  const foreign = await client.request('POST', '/api/api-keys', body, { origin: 'https://evil.example' });
  assert.equal(foreign.status, 403);
  assert.match(foreign.body.error, /Cross-site request refused/);
  assert.equal((await client.request('POST', '/api/api-keys', body, { 'sec-fetch-site': 'cross-site' })).status, 403);
  assert.equal((await client.request('GET', '/api/api-keys', undefined, { 'x-csrf-token': '' })).status, 200, 'a read needs no token');
  assert.equal((await client.post('/api/api-keys', body)).status, 200, 'with both, the change is made');

  const signIn = await createSessionClient(app.url).request(
    'POST',
    '/api/auth/sign-in',
    { email: 'a@example.com', password: TEST_PASSWORD },
    { origin: 'https://evil.example' },
  );
  assert.equal(signIn.status, 403, 'no signing in from another site either');
});

test('a key is judged alone; with a key /api/me has no person; a free account signed in uses the API but not business endpoints', async (t) => {
  const app = await startApp(t);
  const business = await app.createAccount('business');
  const person = await signedInPerson(app, business.accountId, 'owner');
  const key = (await person.client.post('/api/api-keys', { name: 'soon revoked' })).body.api_key as { id: number; key: string };
  const me = await createHttpClient(app.url, key.key).get('/api/me');
  assert.equal(me.status, 200);
  assert.equal(me.body.user, null);
  assert.equal(me.body.csrfToken, null);
  assert.equal(me.body.role, 'owner');
  assert.equal((await person.client.delete(`/api/api-keys/${key.id}`)).status, 200);
  const both = await fetch(`${app.url}/api/links`, {
    headers: { authorization: `Bearer ${key.key}`, cookie: `lv_session=${person.client.sessionId}` },
  });
  assert.equal(both.status, 401, 'a revoked key with a valid session cookie is still a revoked key');

  for (const plan of ['free', 'professional'] as const) {
    const account = await app.createAccount(plan);
    const member = await signedInPerson(app, account.accountId, 'owner');
    assert.equal((await member.client.get('/api/links')).status, 200, `${plan}: the API with a session`);
    const branding = await member.client.get('/api/branding');
    assert.equal(branding.status, 403, `${plan}: business endpoints stay business`);
    assert.match(branding.body.error, /business plan/);
  }
});

test('no session id, password or sign-in token in any answer or log line', async (t) => {
  const env = await testEnv(t);
  const created = await runCli(['accounts', 'create', '--email', 'logs@example.com', '--plan', 'business'], env);
  assert.equal(created.code, 0, created.stderr);
  const link = JSON.parse(
    (await runCli(['users', 'create', '--email', 'person@example.com', '--account-email', 'logs@example.com', '--role', 'owner'], env)).stdout,
  ).signInLink as string;
  const server = await startServerProcess(t, env);
  let output = '';
  server.child.stdout.on('data', (chunk) => (output += chunk));
  const token = new URL(link).searchParams.get('token')!;

  const browser = createSessionClient(server.url);
  const answers: unknown[] = [];
  await fetch(`${server.url}/sign-in/link?token=${token}`).then((response) => response.text());
  answers.push((await browser.post('/api/auth/magic-link/confirm', { token })).body);
  const sessionId = browser.sessionId!;
  assert.match(sessionId, /^[0-9A-Za-z]{43}$/);
  const password = 'a password only the person knows';
  answers.push((await browser.get('/api/me')).body);
  answers.push((await browser.get('/api/sessions')).body);
  answers.push((await createSessionClient(server.url).post('/api/auth/sign-in', { email: 'person@example.com', password })).body);
  answers.push((await browser.get('/api/audit-log')).body);
  await browser.post('/api/auth/sign-out');
  // Let the last request lines reach the log.
  await new Promise((resolve) => setTimeout(resolve, 300));

  const shown = JSON.stringify(answers);
  for (const secret of [token, password, sessionId]) {
    assert.ok(!shown.includes(secret), 'no secret in an answer');
    assert.ok(!output.includes(secret), `no secret in the log: ${secret.slice(0, 4)}…`);
  }
  assert.equal(browser.sessionId, undefined, 'signed out');
  assert.match(output, /\[redacted\]/, 'the token in a page URL is redacted');
});

test('a sign-in with the old password that is still being checked when the password changes does not outlive the change', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const person = await signedInPerson(app, accountId, 'owner');
  const newPassword = 'a brand new password';
  // Sign-ins begin every 20 ms while the change proves the current password and hashes the new one.
  const change = person.client.post('/api/me/password', { currentPassword: TEST_PASSWORD, newPassword });
  const signIns: Array<Promise<{ status: number; client: ReturnType<typeof createSessionClient> }>> = [];
  for (let n = 0; n < 12; n++) {
    const client = createSessionClient(app.url);
    signIns.push(client.post('/api/auth/sign-in', { email: person.email, password: TEST_PASSWORD }).then(({ status }) => ({ status, client })));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal((await change).status, 204);
  const survivors: number[] = [];
  for (const [n, signIn] of (await Promise.all(signIns)).entries()) {
    if (signIn.status === 200 && (await signIn.client.get('/api/me')).status === 200) survivors.push(n);
  }
  assert.deepEqual(survivors, [], 'every session begun with the old password has ended');
  assert.equal((await person.client.get('/api/me')).status, 200, 'the session that made the change stays');
});
