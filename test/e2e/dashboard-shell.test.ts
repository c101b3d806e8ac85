import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, openScreen, PHONE, signedInDashboard } from '../helpers/dashboard.js';
import { createSessionClient, signedInPerson } from '../helpers/people.js';

after(closeBrowser);

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((match) => match[1]!);

test('signed out, / and every /app path lead to sign-in; signed in, / leads to /app and any /app path gets the shell', async (t) => {
  const app = await startApp(t);
  const stranger = createSessionClient(app.url);
  for (const path of ['/', '/app', '/app/documents/abc/settings']) {
    const answer = await fetch(app.url + path, { redirect: 'manual' });
    assert.equal(answer.status, 303, path);
    assert.equal(answer.headers.get('location'), '/sign-in', path);
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

test('an unknown path says there is nothing there and leads back to the documents', async (t) => {
  const app = await startApp(t);
  const { page } = await signedInDashboard(t, app);
  await openScreen(page, app, '/app/no/such/screen', 'There is nothing at this address.');
  await page.getByRole('link', { name: 'Go to your documents' }).click();
  await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
});
