import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Role } from '../../src/core/permissions.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createCookieBrowser, startOidcProvider, throughProvider, type CookieBrowser, type ProviderClaims } from '../helpers/oidc-provider.js';
import { signedInPerson } from '../helpers/people.js';
import { freePort } from '../helpers/ports.js';

/** The app with single sign-on through a real provider that sends browsers back to it. */
async function startWithSingleSignOn(t: TestContext, options: { env?: Record<string, string>; clock?: () => number; emailInIdToken?: boolean } = {}) {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const provider = await startOidcProvider(t, { redirectUri: `${appUrl}/auth/oidc/callback`, emailInIdToken: options.emailInIdToken });
  const app = await startApp(t, { env: { PORT: String(port), PUBLIC_URL: appUrl, ...provider.env, ...options.env }, clock: options.clock });
  return { app, provider };
}

async function personIn(app: TestApp, accountId: number, role: Role, email: string) {
  const userId = await app.runtime.services.users.create({ email, name: 'Existing Person', password: null });
  await app.runtime.services.members.join(userId, accountId, role);
  return userId;
}

/** Goes through the provider as a person with these claims; answers the app's answer to the callback. */
async function signInAs(
  app: TestApp,
  provider: { person(claims: ProviderClaims): string },
  claims: ProviderClaims,
  browser = createCookieBrowser(),
  start?: string,
) {
  const callback = await throughProvider(browser, app.url, provider.person(claims), start);
  return { answer: await browser.get(callback), browser };
}

async function me(app: TestApp, browser: CookieBrowser) {
  const sessionId = browser.cookie('127.0.0.1', 'lv_session');
  assert.ok(sessionId, 'the session cookie is set');
  return app.http().request('GET', '/api/me', undefined, { cookie: `lv_session=${sessionId}` });
}

const sessionCookieOf = (setCookies: string[]) => setCookies.find((cookie) => cookie.startsWith('lv_session='));

test('a verified e-mail of a person signs them in to their first account, audited, and the flow cookie is spent', async (t) => {
  const { app, provider } = await startWithSingleSignOn(t);
  const { accountId } = await app.createAccount();
  const userId = await personIn(app, accountId, 'admin', 'ada@example.com');
  // Two-factor on: single sign-on trusts the provider's own factors and asks no code.
  await app.runtime.services.users.setTwoFactor(userId, 'not used by single sign-on', Date.now());

  const { answer, browser } = await signInAs(app, provider, { email: 'Ada@Example.com', email_verified: true });

  assert.equal(answer.status, 303);
  assert.equal(answer.location, `${app.url}/app`);
  const sessionCookie = sessionCookieOf(answer.setCookies) ?? '';
  assert.match(sessionCookie, /; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
  assert.ok(answer.setCookies.some((cookie) => /^lv_oidc=; Path=\/auth\/oidc; Max-Age=0; HttpOnly; SameSite=Lax$/.test(cookie)));
  const signedIn = await me(app, browser);
  assert.equal(signedIn.status, 200);
  assert.deepEqual(
    { user: signedIn.body.user.email, account: signedIn.body.account.id, role: signedIn.body.role },
    { user: 'ada@example.com', account: accountId, role: 'admin' },
  );
  const audited = await app.runtime.services.audit.list(accountId, { page: 1, limit: 10, action: 'sign_in.succeeded' });
  assert.deepEqual(
    audited.entries.map((entry) => ({ actor: entry.actor.id, details: entry.details })),
    [{ actor: userId, details: { method: 'oidc' } }],
  );

  const replayed = await browser.get(`${app.url}/auth/oidc/callback?code=used&state=used`);
  assert.equal(replayed.location, `${app.url}/sign-in?error=oidc_state`, 'the flow is single use');
});

test('a provider that puts the e-mail in the ID token itself signs the person in too', async (t) => {
  const { app, provider } = await startWithSingleSignOn(t, { emailInIdToken: true });
  const { accountId } = await app.createAccount();
  await personIn(app, accountId, 'member', 'ken@example.com');
  const { answer, browser } = await signInAs(app, provider, { email: 'ken@example.com', email_verified: true });
  assert.equal(answer.location, `${app.url}/app`);
  assert.equal((await me(app, browser)).body.user.email, 'ken@example.com');
});

test('a sign-in begun for a dashboard screen comes back to it; any other place asked for goes to the dashboard', async (t) => {
  const { app, provider } = await startWithSingleSignOn(t);
  const { accountId } = await app.createAccount();
  await personIn(app, accountId, 'member', 'ada@example.com');
  const claims = { email: 'ada@example.com', email_verified: true };
  const screen = '/app/documents/abc/settings?tab=access';
  const back = await signInAs(app, provider, claims, createCookieBrowser(), `/auth/oidc/start?next=${encodeURIComponent(screen)}`);
  assert.equal(back.answer.location, `${app.url}${screen}`);
  for (const next of ['https://evil.example/app', '//evil.example/app', '/appx', 'x'.repeat(2001)]) {
    const elsewhere = await signInAs(app, provider, claims, createCookieBrowser(), `/auth/oidc/start?next=${encodeURIComponent(next)}`);
    assert.equal(elsewhere.answer.location, `${app.url}/app`, next.slice(0, 40));
  }
});

test('a sign-in that comes back after more than ten minutes is refused', async (t) => {
  let late = 0;
  const { app, provider } = await startWithSingleSignOn(t, { clock: () => Date.now() + late });
  const { accountId } = await app.createAccount();
  await personIn(app, accountId, 'member', 'slow@example.com');
  const browser = createCookieBrowser();
  const callback = await throughProvider(browser, app.url, provider.person({ email: 'slow@example.com', email_verified: true }));
  late = 10 * 60_000 + 1_000;
  assert.equal((await browser.get(callback)).location, `${app.url}/sign-in?error=oidc_state`);
});

test('the start sends the browser to the provider with PKCE (S256), state and nonce in a sealed, path-scoped cookie', async (t) => {
  const { app, provider } = await startWithSingleSignOn(t);
  const browser = createCookieBrowser();
  const start = await browser.get(`${app.url}/auth/oidc/start`);
  assert.equal(start.status, 303);
  const authorization = new URL(start.location ?? '');
  assert.equal(authorization.origin, provider.issuer);
  assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
  for (const parameter of ['code_challenge', 'state', 'nonce']) assert.match(authorization.searchParams.get(parameter) ?? '', /^[\w-]{43}$/);
  assert.equal(authorization.searchParams.get('redirect_uri'), `${app.url}/auth/oidc/callback`);
  const [flowCookie = ''] = start.setCookies;
  assert.match(flowCookie, /^lv_oidc=v1\.[\w-]+\.[\w-]+; Path=\/auth\/oidc; Max-Age=600; HttpOnly; SameSite=Lax$/);
  assert.ok(!flowCookie.includes(authorization.searchParams.get('state')!), 'the state is sealed, not readable');
});

test('a pending invitation is accepted by single sign-on: the person joins with the invited role', async (t) => {
  const { app, provider } = await startWithSingleSignOn(t);
  const { accountId } = await app.createAccount();
  const owner = await signedInPerson(app, accountId, 'owner');
  assert.equal((await owner.client.post('/api/invitations', { email: 'grace@partner.example', role: 'admin' })).status, 201);

  const { answer, browser } = await signInAs(app, provider, { email: 'grace@partner.example', email_verified: true, name: 'Grace Hopper' });

  assert.equal(answer.location, `${app.url}/app`);
  const signedIn = await me(app, browser);
  assert.deepEqual(
    { name: signedIn.body.user.name, account: signedIn.body.account.id, role: signedIn.body.role },
    { name: 'Grace Hopper', account: accountId, role: 'admin' },
  );
  assert.deepEqual((await owner.client.get('/api/invitations')).body, { invitations: [] }, 'the invitation is used');
  const user = await app.runtime.services.users.byEmail('grace@partner.example');
  assert.equal(user?.password_hash, null, 'a person who came through single sign-on has no password');
});

test("single sign-on claims no invitation its inviter could no longer make: an admin's, once they are removed", async (t) => {
  const { app, provider } = await startWithSingleSignOn(t);
  const { accountId } = await app.createAccount();
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  assert.equal((await admin.client.post('/api/invitations', { email: 'evil@partner.example', role: 'admin' })).status, 201);
  assert.equal((await owner.client.delete(`/api/members/${admin.userId}`)).status, 204);

  const { answer } = await signInAs(app, provider, { email: 'evil@partner.example', email_verified: true });
  assert.equal(answer.location, `${app.url}/sign-in?error=oidc_no_account`);
  assert.equal(await app.runtime.services.users.byEmail('evil@partner.example'), undefined, 'no one joined');
});

test('an auto-join domain joins the first account as a member; another domain is refused', async (t) => {
  const { app, provider } = await startWithSingleSignOn(t, { env: { OIDC_AUTO_JOIN_DOMAINS: 'corp.example, other.example' } });
  const first = await app.createAccount();
  await app.createAccount();

  const { answer, browser } = await signInAs(app, provider, { email: 'linus@corp.example', email_verified: true });
  assert.equal(answer.location, `${app.url}/app`);
  const signedIn = await me(app, browser);
  assert.deepEqual({ account: signedIn.body.account.id, role: signedIn.body.role }, { account: first.accountId, role: 'member' });
  const added = await app.runtime.services.audit.list(first.accountId, { page: 1, limit: 10, action: 'member.added' });
  assert.deepEqual(added.entries[0]?.details, { email: 'linus@corp.example', role: 'member', method: 'oidc' });

  const stranger = await signInAs(app, provider, { email: 'mallory@elsewhere.example', email_verified: true });
  assert.equal(stranger.answer.location, `${app.url}/sign-in?error=oidc_no_account`);
  assert.equal(sessionCookieOf(stranger.answer.setCookies), undefined);
  assert.equal(await app.runtime.services.users.byEmail('mallory@elsewhere.example'), undefined);
});

test('an e-mail the provider did not verify is refused, and the refusal is audited', async (t) => {
  const { app, provider } = await startWithSingleSignOn(t, { env: { OIDC_AUTO_JOIN_DOMAINS: 'example.com' } });
  const { accountId } = await app.createAccount();
  await personIn(app, accountId, 'owner', 'eve@example.com');

  for (const claims of [{ email: 'eve@example.com', email_verified: false }, { email: 'eve@example.com' }, { email_verified: true }]) {
    const { answer } = await signInAs(app, provider, claims);
    assert.equal(answer.location, `${app.url}/sign-in?error=oidc_unverified`, JSON.stringify(claims));
    assert.equal(sessionCookieOf(answer.setCookies), undefined);
  }
  const failed = await app.runtime.services.audit.list(accountId, { page: 1, limit: 10, action: 'sign_in.failed' });
  assert.equal(failed.entries.length, 2);
  assert.match(String(failed.entries[0]?.details.reason), /did not verify/);
});

test('a tampered state, a missing flow cookie, a provider error and a disabled person end on the sign-in page', async (t) => {
  const { app, provider } = await startWithSingleSignOn(t);
  const { accountId } = await app.createAccount();
  await personIn(app, accountId, 'member', 'sam@example.com');
  const verified = { email: 'sam@example.com', email_verified: true };

  const tampered = createCookieBrowser();
  const callback = new URL(await throughProvider(tampered, app.url, provider.person(verified)));
  callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
  const refused = await tampered.get(callback.href);
  assert.equal(refused.status, 303);
  assert.equal(refused.location, `${app.url}/sign-in?error=oidc_state`);
  assert.equal(sessionCookieOf(refused.setCookies), undefined);

  const elsewhere = createCookieBrowser();
  const stolen = await throughProvider(elsewhere, app.url, provider.person(verified));
  elsewhere.forget('127.0.0.1', 'lv_oidc');
  assert.equal((await elsewhere.get(stolen)).location, `${app.url}/sign-in?error=oidc_state`, 'a callback opened in another browser');

  const forged = createCookieBrowser();
  await forged.get(`${app.url}/auth/oidc/start`);
  const sealed = forged.cookie('127.0.0.1', 'lv_oidc') ?? '';
  const answer = await fetch(`${app.url}/auth/oidc/callback?code=x&state=y`, {
    headers: { cookie: `lv_oidc=${sealed.slice(0, -2)}AA` },
    redirect: 'manual',
  });
  assert.equal(answer.headers.get('location'), '/sign-in?error=oidc_state', 'an altered flow cookie');

  const denied = createCookieBrowser();
  const state = new URL((await denied.get(`${app.url}/auth/oidc/start`)).location!).searchParams.get('state');
  const providerError = await denied.get(`${app.url}/auth/oidc/callback?error=access_denied&state=${state}`);
  assert.equal(providerError.location, `${app.url}/sign-in?error=oidc_failed`);

  const userId = (await app.runtime.services.users.byEmail('sam@example.com'))!.id;
  await app.runtime.database.db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', userId).execute();
  const disabled = await signInAs(app, provider, verified);
  assert.equal(disabled.answer.location, `${app.url}/sign-in?error=oidc_disabled`);
});

test('without OIDC_ISSUER the single sign-on routes answer 404', async (t) => {
  const app = await startApp(t);
  for (const path of ['/auth/oidc/start', '/auth/oidc/callback?code=x&state=y']) {
    const answer = await app.http().get(path);
    assert.equal(answer.status, 404, path);
    assert.match(answer.body.error, /Single sign-on/);
  }
});

test('a provider that cannot be reached sends the browser back to the sign-in page', async (t) => {
  const closedPort = await freePort();
  const env = { OIDC_ISSUER: `http://127.0.0.1:${closedPort}`, OIDC_CLIENT_ID: 'linkvault', OIDC_CLIENT_SECRET: 'secret' };
  const app = await startApp(t, { env });
  const answer = await fetch(`${app.url}/auth/oidc/start`, { redirect: 'manual' });
  assert.equal(answer.status, 303);
  assert.equal(answer.headers.get('location'), '/sign-in?error=oidc_failed');
  assert.equal(answer.headers.get('set-cookie'), null, 'no flow is started');
});
