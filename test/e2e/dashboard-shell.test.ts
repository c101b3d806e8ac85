import assert from 'node:assert/strict';
import { after, test, type TestContext } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, openScreen, PHONE, signedInDashboard } from '../helpers/dashboard.js';
import { createLink } from '../helpers/files.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';

after(closeBrowser);

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((match) => match[1]!);

test('signed out, / and every /app path lead to sign-in; signed in, / leads to /app and any /app path gets the shell', async (t) => {
  const app = await startApp(t);
  const stranger = createSessionClient(app.url);
  for (const path of ['/', '/app', '/app/documents/abc/settings']) {
    const answer = await fetch(app.url + path, { redirect: 'manual' });
    assert.equal(answer.status, 303, path);
    assert.equal(
      answer.headers.get('location'),
      path === '/app/documents/abc/settings' ? '/sign-in?next=%2Fapp%2Fdocuments%2Fabc%2Fsettings' : '/sign-in',
      path,
    );
  }
  assert.equal((await stranger.get('/api/me')).status, 401);

  const { accountId } = await app.createAccount();
  const { client } = await signedInPerson(app, accountId, 'member');
  const cookie = `lv_session=${client.sessionId}`;
  const home = await fetch(`${app.url}/`, { redirect: 'manual', headers: { cookie } });
  assert.equal(home.headers.get('location'), '/app');
  for (const path of ['/app', '/app/settings/api-keys', '/app/no/such/screen']) {
    const answer = await fetch(app.url + path, { headers: { cookie } });
    assert.equal(answer.status, 200, path);
    assert.match(answer.headers.get('content-type') ?? '', /text\/html/);
    const csp = answer.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline script');
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(answer.headers.get('cache-control'), 'private, no-store');
    const html = await answer.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script is a file');
  }
});

test('assets: content-hashed names, cached for a year, sent as brotli or gzip as the browser accepts', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount();
  const { client } = await signedInPerson(app, accountId, 'owner');
  const html = await (await fetch(`${app.url}/app`, { headers: { cookie: `lv_session=${client.sessionId}` } })).text();
  const assets = assetsOf(html);
  assert.ok(
    assets.some((asset) => /-[A-Z0-9]{8}\.js$/.test(asset)),
    `a hashed script in ${assets.join(', ')}`,
  );
  assert.ok(
    assets.some((asset) => /-[A-Z0-9]{8}\.css$/.test(asset)),
    'a hashed stylesheet',
  );
  for (const asset of assets) {
    const plain = await fetch(app.url + asset, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(plain.headers.get('content-encoding'), null);
    const body = Buffer.from(await plain.arrayBuffer());

    const br = await fetch(app.url + asset, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.equal(br.headers.get('vary'), 'accept-encoding');
    // fetch() decodes what the answer announces: the same bytes, so the encoding was real.
    assert.deepEqual(Buffer.from(await br.arrayBuffer()), body);

    const gz = await fetch(app.url + asset, { headers: { 'accept-encoding': 'gzip, br;q=0' } });
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.deepEqual(Buffer.from(await gz.arrayBuffer()), body);
  }
  assert.equal((await fetch(`${app.url}/app/assets/missing-ABCDEFGH.js`)).status, 404);
  assert.ok([400, 404].includes((await fetch(`${app.url}/app/assets/..%2f..%2fpackage.json`)).status), 'no way out of the bundle');
});

for (const [name, viewport] of [
  ['desktop', undefined],
  ['phone', PHONE],
] as const) {
  test(`the frame at ${name} width: the navigation's plain names, the account's colour, no accessibility violation`, async (t) => {
    const app = await startApp(t);
    const { page } = await signedInDashboard(t, app, { viewport });
    await openScreen(page, app, '/app', 'Documents');
    if (viewport) await page.getByRole('button', { name: 'Menu' }).click();
    const navigation = page.getByRole('navigation', { name: 'Main' });
    for (const label of ['Documents', 'Analytics', 'Requests', 'Rooms', 'Portals', 'Templates', 'Settings']) {
      await navigation.getByRole('link', { name: label, exact: true }).waitFor();
    }
    const header = await page
      .locator('.app-header')
      .evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).backgroundColor);
    assert.equal(header, 'rgb(36, 87, 214)', "the default brand colour (the account's once set)");
    await checkScreen(page, `frame-${name}`);
  });
}

/** A person signed in to the dashboard, typing a new name for a link on its settings screen. */
async function typingALinkName(t: TestContext) {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const id = await createLink(http, 'x', 'board-deck.txt');
  const person = await signedInDashboard(t, app, { accountId });
  await openScreen(person.page, app, `/app/documents/${id}/settings`, 'board-deck.txt');
  const name = person.page.getByRole('textbox', { name: 'Name', exact: true });
  await name.fill('Board deck, final');
  return { app, http, id, person, page: person.page, name };
}

test('a session that ends while a form is being typed in: the screen and the draft stay, and signing in again comes back to it', async (t) => {
  const { app, id, person, page, name } = await typingALinkName(t);

  assert.equal((await person.client.post('/api/auth/sign-out', {})).status, 204, 'signed out in another tab');
  await page.getByRole('button', { name: 'Save name' }).click();
  const ended = page.locator('.session-ended[role="alert"]');
  await ended.waitFor();
  assert.equal(new URL(page.url()).pathname, `/app/documents/${id}/settings`, 'the screen stays');
  assert.equal(await name.inputValue(), 'Board deck, final', 'and what was typed');
  await checkScreen(page, 'session-ended');

  await ended.getByRole('link', { name: 'Sign in again' }).click();
  await page.getByText('Your session has ended. Sign in again to go on where you were.').waitFor();
  const screen = encodeURIComponent(`/app/documents/${id}/settings`);
  assert.equal(
    await page.getByRole('link', { name: 'Email me a sign-in link' }).getAttribute('href'),
    `/sign-in/link?next=${screen}`,
    'a mailed link comes back too',
  );
  await page.getByLabel('Email', { exact: true }).fill(person.email);
  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app.url}/app/documents/${id}/settings`);
  await page.getByRole('heading', { level: 1, name: 'board-deck.txt' }).waitFor();

  // Only a dashboard path of this origin is gone on to.
  for (const next of ['//evil.example/app', 'https://evil.example/app', '/\\evil.example', '/appx']) {
    const answer = await fetch(`${app.url}/sign-in?next=${encodeURIComponent(next)}`, { redirect: 'manual' });
    assert.match(await answer.text(), /data-next="\/app"/, next);
  }
});

test('an old tab after a new sign-in in another tab: told in plain words, it takes the new session token and the same change goes through', async (t) => {
  const { app, http, id, person, page } = await typingALinkName(t);

  // Another tab signs out and in again: this browser now holds a new session, and this page an old token.
  assert.equal((await person.client.post('/api/auth/sign-out', {})).status, 204);
  const again = createSessionClient(app.url);
  assert.equal((await again.post('/api/auth/sign-in', { email: person.email, password: TEST_PASSWORD })).status, 200);
  await page.context().addCookies([{ name: 'lv_session', value: again.sessionId!, url: app.url }]);

  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByText('You signed in again in another tab, so this change was not made: this page has caught up, try again.').waitFor();
  assert.equal((await http.get(`/api/links/${id}`)).body.name, 'board-deck.txt');
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByText('Settings saved').waitFor();
  assert.equal((await http.get(`/api/links/${id}`)).body.name, 'Board deck, final');
});

test('the account menu: Escape closes it and gives the focus back to its button', async (t) => {
  const app = await startApp(t);
  const { page } = await signedInDashboard(t, app);
  await openScreen(page, app, '/app', 'Documents');
  const button = page.locator('.account-button');
  await button.focus();
  await page.keyboard.press('Enter');
  const signOut = page.getByRole('button', { name: 'Sign out' });
  await signOut.waitFor();
  await signOut.focus();
  await page.keyboard.press('Escape');
  await signOut.waitFor({ state: 'hidden' });
  assert.equal(await button.evaluate((element) => element === element.ownerDocument.activeElement), true, 'the focus is on the account button');
});

test('an unknown path says there is nothing there and leads back to the documents', async (t) => {
  const app = await startApp(t);
  const { page } = await signedInDashboard(t, app);
  await openScreen(page, app, '/app/no/such/screen', 'There is nothing at this address.');
  await page.getByRole('link', { name: 'Go to your documents' }).click();
  await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
});
