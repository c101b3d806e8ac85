import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import type { Role } from '../../src/core/permissions.js';
import { TOTP, URI } from 'otpauth';
import { startApp, testEnv, type TestApp } from '../helpers/app.js';
import { closeBrowser, screenshot } from '../helpers/browser.js';
import { watchedPage } from '../helpers/dashboard.js';
import { createSessionClient, TEST_PASSWORD } from '../helpers/people.js';
import { freePort } from '../helpers/ports.js';
import { startServerProcess } from '../helpers/process.js';
import { startSmtp, type ReceivedMail } from '../helpers/smtp.js';

after(closeBrowser);

const PHONE = { width: 390, height: 844 };
const XSS = '<img src=x onerror=alert(1)>';

/** A browser page whose test fails on any script error, CSP refusal or dialog (an injected alert()). */
const ownerPage = (t: TestContext, viewport?: { width: number; height: number }): Promise<Page> => watchedPage(t, viewport);

async function namedAccount(app: TestApp, name: string) {
  const email = `account-${randomBytes(4).toString('hex')}@example.com`;
  const { accountId, apiKey } = await app.runtime.services.accounts.create({ email, plan: 'business', name });
  return { accountId, http: app.http(apiKey) };
}

/** A person with TEST_PASSWORD in an account, made through the services. */
async function addPerson(app: TestApp, accountId: number, role: Role, name: string) {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}-${randomBytes(3).toString('hex')}@example.com`;
  const userId = await app.runtime.services.users.create({ email, name, password: TEST_PASSWORD });
  await app.runtime.services.members.join(userId, accountId, role);
  return { userId, email };
}

/** The path and query of the link in a mail (the test server's PUBLIC_URL names port 0). */
function linkIn(mail: ReceivedMail, path: RegExp): string {
  const match = new RegExp(`https?://[^/\\s]+(${path.source})`).exec(mail.text);
  if (!match) throw new Error(`no ${path} link in: ${mail.text}`);
  return match[1]!;
}

async function signIn(page: Page, baseUrl: string, email: string, password: string) {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The dashboard, opened for `name`: its account menu (who, in which account, in which role) as text. */
async function dashboardFor(page: Page, name: string): Promise<string> {
  await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
  const menu = page.getByRole('button', { name: `Account: ${name}` });
  if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  return page.locator('#account-panel').innerText();
}
const focusedId = (page: Page) => page.evaluate<string | null>('document.activeElement && document.activeElement.id');

test('first run: the link the new server logs opens the setup page, which ends signed in on /app', async (t) => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const server = await startServerProcess(t, await testEnv(t, { PORT: String(port), PUBLIC_URL: publicUrl }));
  const [, setupUrl] = await server.waitForOutput(/Create the first owner: (http:\/\/127\.0\.0\.1:\d+\/setup\?token=[0-9A-Za-z]+)/);
  assert.ok(setupUrl!.startsWith(`${publicUrl}/setup?token=`), setupUrl);

  const page = await ownerPage(t);
  await page.goto(setupUrl!);
  await page.getByRole('heading', { name: 'Create the owner account' }).waitFor();
  assert.equal(await page.getByLabel('Email', { exact: true }).getAttribute('autocomplete'), 'email');
  assert.equal(await page.getByLabel('Password', { exact: true }).getAttribute('autocomplete'), 'new-password');
  assert.equal(await page.getByLabel('Company name', { exact: true }).getAttribute('autocomplete'), 'organization');
  await screenshot(page, 'owner-pages-setup');
  await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
  await page.getByLabel('Email', { exact: true }).fill('ada@analytical.example');
  await page.getByLabel('Password', { exact: true }).fill('difference engine no. 2');
  await page.getByLabel('Company name', { exact: true }).fill('Analytical Engines Ltd');
  await page.getByRole('button', { name: 'Create owner account' }).click();
  await page.waitForURL(`${publicUrl}/app`);
  const shown = await dashboardFor(page, 'Ada Lovelace');
  assert.match(shown, /Analytical Engines Ltd/);
  assert.match(shown, /Owner/);
  await screenshot(page, 'owner-pages-first-run-app');

  const again = await page.goto(setupUrl!);
  assert.equal(again?.status(), 404, 'the link works once');
  assert.match(await page.locator('main').innerText(), /This setup link has been used or has expired\. Run npx linkvault setup-link for a new one\./);
});

test('sign-in page: a wrong password is refused in place, the right one opens /app, sign out returns to /sign-in', async (t) => {
  const app = await startApp(t);
  const { accountId } = await namedAccount(app, 'Northwind Advisory');
  const grace = await addPerson(app, accountId, 'admin', 'Grace Hopper');
  const page = await ownerPage(t, PHONE);

  const response = await page.goto(`${app.url}/sign-in`);
  const headers = response!.headers();
  assert.match(headers['content-security-policy'] ?? '', /script-src 'self'; style-src 'self' 'nonce-[^']+'/);
  assert.equal(headers['x-frame-options'], 'SAMEORIGIN');
  assert.equal(headers['referrer-policy'], 'no-referrer');
  assert.match(headers['cache-control'] ?? '', /no-store/);
  assert.equal(await page.getByRole('link', { name: 'Sign in with single sign-on' }).count(), 0, 'no SSO without OIDC_ISSUER');
  assert.equal(await page.getByRole('link', { name: 'Create an account' }).count(), 0, 'SIGNUP=invite by default');
  assert.equal(await page.getByLabel('Password', { exact: true }).getAttribute('autocomplete'), 'current-password');

  await signIn(page, app.url, grace.email, 'not the password');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /e-mail or password is not right/);
  assert.equal(new URL(page.url()).pathname, '/sign-in');
  assert.equal(await focusedId(page), 'password', 'the field to correct has the focus');
  assert.equal(await page.getByRole('button', { name: 'Sign in' }).isEnabled(), true);
  await screenshot(page, 'owner-pages-sign-in-refused');

  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.url}/app`);
  const shown = await dashboardFor(page, 'Grace Hopper');
  assert.match(shown, /Northwind Advisory/);
  assert.match(shown, /Admin/);
  assert.equal(await page.getByRole('list', { name: 'Switch account' }).count(), 0, 'one account: no switcher');

  await page.goto(`${app.url}/sign-in`);
  assert.equal(new URL(page.url()).pathname, '/app', 'signed in already: straight to /app');

  await dashboardFor(page, 'Grace Hopper');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${app.url}/sign-in`);
  await page.goto(`${app.url}/app`);
  assert.equal(new URL(page.url()).pathname, '/sign-in', 'signed out: /app sends to /sign-in');
});

test('sign-in page: what single sign-on sends back, its link once configured, and the two-factor code when the API asks', async (t) => {
  const app = await startApp(t, {
    env: { OIDC_ISSUER: `http://127.0.0.1:${await freePort()}/`, OIDC_CLIENT_ID: 'linkvault', OIDC_CLIENT_SECRET: 'secret', SIGNUP: 'open' },
  });
  const page = await ownerPage(t);
  const sentences: Record<string, string> = {
    oidc_state: 'The sign-in took too long or was started elsewhere; try again.',
    oidc_unverified: 'Your identity provider did not confirm this e-mail address.',
    oidc_no_account: 'No linkvault account is open to this e-mail; ask an owner for an invitation.',
    oidc_failed: 'Single sign-on failed; try again or use your password.',
    something_else: 'The sign-in did not work; try again.',
    constructor: 'The sign-in did not work; try again.',
  };
  for (const [code, sentence] of Object.entries(sentences)) {
    await page.goto(`${app.url}/sign-in?error=${code}`);
    assert.equal(await page.getByRole('alert').innerText(), sentence, code);
  }
  assert.equal(await page.getByRole('link', { name: 'Sign in with single sign-on' }).getAttribute('href'), '/auth/oidc/start');
  assert.equal(await page.getByRole('link', { name: 'Create an account' }).getAttribute('href'), '/sign-up');

  const { accountId } = await namedAccount(app, 'Careful Ltd');
  const careful = await addPerson(app, accountId, 'owner', 'Careful Person');
  // Two-factor turned on through the API, as the person would; the page then asks for the code.
  const api = createSessionClient(app.url);
  await api.post('/api/auth/sign-in', { email: careful.email, password: TEST_PASSWORD });
  const otpauthUri = (await api.post('/api/me/two-factor')).body.otpauthUri as string;
  const authenticator = URI.parse(otpauthUri) as TOTP;
  assert.equal((await api.post('/api/me/two-factor/confirm', { code: authenticator.generate(), password: TEST_PASSWORD })).status, 200);
  await signIn(page, app.url, careful.email, TEST_PASSWORD);
  const code = page.getByLabel('Two-factor code', { exact: true });
  await code.waitFor();
  assert.equal(await focusedId(page), 'code', 'the code field takes the focus');
  assert.equal(await code.getAttribute('autocomplete'), 'one-time-code');
  assert.equal(await page.getByRole('alert').count(), 0, 'asking for the code is no error');
  await screenshot(page, 'owner-pages-sign-in-two-factor');
  await code.fill('000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /two-factor code is not right/, 'the code went with the second try');
  assert.equal(new URL(page.url()).pathname, '/sign-in');
  await code.fill(authenticator.generate({ timestamp: Date.now() + 30_000 }));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.url}/app`);
  await dashboardFor(page, 'Careful Person');
});

test('magic link: asked for on the page, read from the mail, signs in only when its button is pressed', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await namedAccount(app, 'Linkwise');
  const lin = await addPerson(app, accountId, 'member', 'Lin Chen');
  const page = await ownerPage(t, PHONE);

  await page.goto(`${app.url}/sign-in`);
  await page.getByRole('link', { name: 'Email me a sign-in link' }).click();
  await page.waitForURL(`${app.url}/sign-in/link`);
  await page.getByLabel('Email', { exact: true }).fill(lin.email);
  await page.getByRole('button', { name: 'Email me a link' }).click();
  const inbox = page.getByRole('heading', { name: 'Check your inbox' });
  await inbox.waitFor();
  assert.equal(await page.evaluate('document.activeElement.textContent'), 'Check your inbox', 'the result takes the focus');
  await screenshot(page, 'owner-pages-magic-link-sent');

  const link = linkIn(await smtp.waitFor(lin.email), /\/sign-in\/link\?token=[0-9A-Za-z]+/);
  await page.goto(app.url + link);
  assert.equal((await page.request.get(`${app.url}/api/me`)).status(), 401, 'opening the link signs no one in');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.url}/app`);
  assert.match(await dashboardFor(page, 'Lin Chen'), /Member/);

  await page.goto(app.url + link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /has been used already or has expired/, 'the link works once');
});

test('a magic link asked for from a sign-in begun for a screen signs in to that screen', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await namedAccount(app, 'Linkwise');
  const lin = await addPerson(app, accountId, 'member', 'Lin Chen');
  const page = await ownerPage(t);

  await page.goto(`${app.url}/app/analytics`);
  await page.waitForURL(`${app.url}/sign-in?next=%2Fapp%2Fanalytics`);
  await page.getByRole('link', { name: 'Email me a sign-in link' }).click();
  await page.getByLabel('Email', { exact: true }).fill(lin.email);
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();

  const first = await smtp.waitFor(lin.email);
  const link = linkIn(first, /\/sign-in\/link\?token=[0-9A-Za-z]+&next=\S+/);
  assert.match(link, /&next=%2Fapp%2Fanalytics$/);
  await page.goto(app.url + link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.url}/app/analytics`);
  await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();

  // A place that is not a dashboard screen is not carried into the mail.
  const api = createSessionClient(app.url);
  assert.equal((await api.post('/api/auth/magic-link', { email: lin.email, next: 'https://evil.example/app' })).status, 202);
  const second = await smtp.waitFor(lin.email, (mail) => mail !== first);
  assert.match(second.text, /\/sign-in\/link\?token=[0-9A-Za-z]+\s/);
  assert.doesNotMatch(second.text, /next=/);
});

test('password reset: asked for on the page, chosen through the mailed link, then signed in with the new password', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await namedAccount(app, 'Forgetful & Sons');
  const sam = await addPerson(app, accountId, 'owner', 'Sam Forgetful');
  const page = await ownerPage(t);
  const newPassword = 'a much better passphrase';

  await page.goto(`${app.url}/sign-in`);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.waitForURL(`${app.url}/reset-password`);
  await page.getByLabel('Email', { exact: true }).fill(sam.email);
  await page.getByRole('button', { name: 'Email me a reset link' }).click();
  await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();

  const link = linkIn(await smtp.waitFor(sam.email), /\/reset-password\?token=[0-9A-Za-z]+/);
  await page.goto(app.url + link);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  assert.equal(await page.getByLabel('Password', { exact: true }).getAttribute('autocomplete'), 'new-password');
  await page.getByLabel('Password', { exact: true }).fill(newPassword);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByRole('heading', { name: 'Password changed' }).waitFor();
  await screenshot(page, 'owner-pages-password-changed');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.url}/sign-in`);

  await signIn(page, app.url, sam.email, TEST_PASSWORD);
  await page.getByRole('alert').waitFor();
  await page.getByLabel('Password', { exact: true }).fill(newPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.url}/app`);
  await dashboardFor(page, 'Sam Forgetful');
});

test('invitation: the mailed link joins the account in its brand and role; a person with two accounts switches between them', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const northwind = await namedAccount(app, 'Northwind Advisory');
  assert.equal((await northwind.http.post('/api/branding', { company_name: 'Northwind Advisory', primary_color: '#0b6e4f' })).status, 200);

  const newcomer = `new.hire-${randomBytes(3).toString('hex')}@example.com`;
  assert.equal((await northwind.http.post('/api/invitations', { email: newcomer, role: 'member' })).status, 201);
  const page = await ownerPage(t, PHONE);
  await page.goto(app.url + linkIn(await smtp.waitFor(newcomer), /\/invite\/[0-9A-Za-z]+/));
  await page.getByRole('heading', { name: 'Join Northwind Advisory' }).waitFor();
  assert.match(await page.locator('header.brand').innerText(), /Northwind Advisory/, "in the inviting account's brand");
  const accept = page.getByRole('button', { name: 'Accept invitation' });
  assert.equal(await accept.evaluate((button) => (globalThis as any).getComputedStyle(button).backgroundColor), 'rgb(11, 110, 79)');
  assert.match(await page.locator('main').innerText(), /join as Member/);
  assert.equal(await page.getByLabel('Email', { exact: true }).inputValue(), newcomer);
  await screenshot(page, 'owner-pages-invitation');
  await page.getByLabel('Name', { exact: true }).fill('Noor Haddad');
  await page.getByLabel('Password', { exact: true }).fill('first day at northwind');
  await accept.click();
  await page.waitForURL(`${app.url}/app`);
  let shown = await dashboardFor(page, 'Noor Haddad');
  assert.match(shown, /Northwind Advisory/);
  assert.match(shown, /Member/);

  // Someone who already signs in elsewhere proves it with their password, and then has two accounts.
  const contoso = await namedAccount(app, 'Contoso');
  const kim = await addPerson(app, contoso.accountId, 'owner', 'Kim Park');
  assert.equal((await northwind.http.post('/api/invitations', { email: kim.email, role: 'admin' })).status, 201);
  const kimsPage = await ownerPage(t);
  await kimsPage.goto(app.url + linkIn(await smtp.waitFor(kim.email), /\/invite\/[0-9A-Za-z]+/));
  await kimsPage.getByRole('heading', { name: 'Join Northwind Advisory' }).waitFor();
  assert.equal(await kimsPage.getByLabel('Name', { exact: true }).count(), 0, 'an existing person gives no name');
  assert.equal(await kimsPage.getByLabel('Password', { exact: true }).getAttribute('autocomplete'), 'current-password');
  await kimsPage.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
  await kimsPage.getByRole('button', { name: 'Accept invitation' }).click();
  await kimsPage.waitForURL(`${app.url}/app`);
  shown = await dashboardFor(kimsPage, 'Kim Park');
  assert.match(shown, /Northwind Advisory/);
  assert.match(shown, /Admin/);

  const switcher = kimsPage.getByRole('list', { name: 'Switch account' });
  assert.deepEqual(await switcher.getByRole('button').allInnerTexts(), ['Contoso · Owner'], 'the other account, with the role there');
  await screenshot(kimsPage, 'owner-pages-app-two-accounts');
  await switcher.getByRole('button', { name: 'Contoso · Owner' }).click();
  await kimsPage.locator('.app-name', { hasText: 'Contoso' }).waitFor();
  shown = await dashboardFor(kimsPage, 'Kim Park');
  assert.match(shown, /Contoso · Owner/);

  // Someone with two-factor on proves it here too, as at sign-in: the page asks for the code.
  const fabrikam = await namedAccount(app, 'Fabrikam');
  const sam = await addPerson(app, fabrikam.accountId, 'owner', 'Sam Careful');
  const api = createSessionClient(app.url);
  await api.post('/api/auth/sign-in', { email: sam.email, password: TEST_PASSWORD });
  const authenticator = URI.parse((await api.post('/api/me/two-factor')).body.otpauthUri as string) as TOTP;
  assert.equal((await api.post('/api/me/two-factor/confirm', { code: authenticator.generate(), password: TEST_PASSWORD })).status, 200);
  assert.equal((await northwind.http.post('/api/invitations', { email: sam.email, role: 'member' })).status, 201);
  const samsPage = await ownerPage(t, PHONE);
  await samsPage.goto(app.url + linkIn(await smtp.waitFor(sam.email), /\/invite\/[0-9A-Za-z]+/));
  await samsPage.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
  await samsPage.getByRole('button', { name: 'Accept invitation' }).click();
  const code = samsPage.getByLabel('Two-factor code', { exact: true });
  await code.waitFor();
  assert.equal(await focusedId(samsPage), 'code', 'the code field takes the focus');
  assert.equal(new URL(samsPage.url()).pathname.startsWith('/invite/'), true, 'not in yet');
  await screenshot(samsPage, 'owner-pages-invitation-two-factor');
  await code.fill(authenticator.generate({ timestamp: Date.now() + 30_000 }));
  await samsPage.getByRole('button', { name: 'Accept invitation' }).click();
  await samsPage.waitForURL(`${app.url}/app`);
  assert.match(await dashboardFor(samsPage, 'Sam Careful'), /Northwind Advisory/);
});

test('no value from the URL or an account name is rendered as HTML', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const hostile = await namedAccount(app, XSS);
  const invitee = `invitee-${randomBytes(3).toString('hex')}@example.com`;
  assert.equal((await hostile.http.post('/api/invitations', { email: invitee, role: 'member' })).status, 201);
  const invitePath = linkIn(await smtp.waitFor(invitee), /\/invite\/[0-9A-Za-z]+/);

  const page = await ownerPage(t);
  await page.goto(app.url + invitePath);
  assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), `Join ${XSS}`, 'the name appears as text');
  assert.equal(await page.locator('main img').count(), 0);
  const html = await (await fetch(app.url + invitePath)).text();
  assert.ok(html.includes('Join &lt;img src=x onerror=alert(1)&gt;'));

  const payload = encodeURIComponent(`"><img src=x onerror=alert(1)><script>alert(2)</script>`);
  for (const path of [
    `/sign-in?error=${payload}`,
    `/sign-in/link?token=${payload}`,
    `/reset-password?token=${payload}`,
    `/setup?token=${payload}`,
    `/setup?signup=${payload}`,
    `/invite/${payload}`,
  ]) {
    const text = await (await fetch(app.url + path)).text();
    assert.ok(!/<img src=x|<script>alert/.test(text), `${path} renders the value as text`);
    await page.goto(app.url + path);
    assert.equal(await page.locator('main img, main script').count(), 0, path);
  }
});

test('open sign-up: the confirmation mail leads to the account form and into /app as the owner', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url, SIGNUP: 'open' } });
  const page = await ownerPage(t, PHONE);
  const email = `founder-${randomBytes(3).toString('hex')}@example.com`;

  await page.goto(`${app.url}/sign-in`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByRole('button', { name: 'Email me a confirmation link' }).click();
  await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();

  await page.goto(app.url + linkIn(await smtp.waitFor(email), /\/setup\?signup=[0-9A-Za-z]+/));
  assert.equal(await page.getByLabel('Email', { exact: true }).count(), 0, 'the address is the confirmed one');
  await page.getByLabel('Name', { exact: true }).fill('Fatima Okafor');
  await page.getByLabel('Password', { exact: true }).fill('founders keepers 2024');
  await page.getByLabel('Company name', { exact: true }).fill('Okafor Ventures');
  await page.getByRole('button', { name: 'Create owner account' }).click();
  await page.waitForURL(`${app.url}/app`);
  const shown = await dashboardFor(page, 'Fatima Okafor');
  assert.match(shown, /Okafor Ventures/);
  assert.match(shown, /Owner/);
});
