import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createLink } from '../../../test/helpers/files.js';

test('create, list, read, rename, delete: the portal and its answers', async (t) => {
  const app = await startApp(t, { env: { PUBLIC_URL: 'https://share.example.com' } });
  const { http } = await app.createAccount('professional');

  const created = await http.post('/api/client-portals', {
    name: 'Acme Corp',
    slug: 'acme-corp',
    allowedEmails: [' Dana@Acme.com ', 'dana@acme.com', 'lee@acme.com'],
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.equal(created.body.ok, true);
  assert.match(created.body.id, /^[0-9A-Za-z]{22}$/);
  assert.equal(created.body.url, 'https://share.example.com/p/acme-corp');
  const id = created.body.id;

  const listed = await http.get('/api/client-portals');
  assert.deepEqual(listed.body, { portals: [{ id, name: 'Acme Corp', slug: 'acme-corp', url: 'https://share.example.com/p/acme-corp' }] });

  const detail = await http.get(`/api/client-portals/${id}`);
  assert.equal(detail.status, 200);
  assert.deepEqual(detail.body, {
    portal: {
      id,
      name: 'Acme Corp',
      slug: 'acme-corp',
      url: 'https://share.example.com/p/acme-corp',
      allowedEmails: ['dana@acme.com', 'lee@acme.com'],
      links: [],
    },
  });

  for (const method of ['PATCH', 'PUT', 'POST']) {
    const renamed = await http.request(method, `/api/client-portals/${id}`, { name: `Acme (${method})` });
    assert.deepEqual([renamed.status, renamed.body], [200, { ok: true }], method);
    assert.equal((await http.get(`/api/client-portals/${id}`)).body.portal.name, `Acme (${method})`);
  }
  const moved = await http.patch(`/api/client-portals/${id}`, { slug: 'acme', allowedEmails: ['ops@acme.com'] });
  assert.equal(moved.status, 200);
  const after = (await http.get(`/api/client-portals/${id}`)).body.portal;
  assert.equal(after.slug, 'acme');
  assert.deepEqual(after.allowedEmails, ['ops@acme.com']);
  assert.equal(after.name, 'Acme (POST)', 'fields not sent stay');
  assert.deepEqual((await http.patch(`/api/client-portals/${id}`, {})).body, { ok: true }, 'an empty change changes nothing');

  assert.deepEqual((await http.delete(`/api/client-portals/${id}`)).body, { ok: true });
  assert.equal((await http.get(`/api/client-portals/${id}`)).status, 404);
  assert.equal((await http.delete(`/api/client-portals/${id}`)).status, 404);
  assert.deepEqual((await http.get('/api/client-portals')).body, { portals: [] });
});

test('slugs: lower-case letters, digits and hyphens, 3-63 characters, else 400', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const bad = ['ab', 'Acme', 'acme corp', 'acme_corp', 'acmé', 'a'.repeat(64), '', 'acme/x', 42];
  for (const slug of bad) {
    const response = await http.post('/api/client-portals', { name: 'x', slug });
    assert.equal(response.status, 400, JSON.stringify(slug));
    assert.match(response.body.error, /slug/);
  }
  for (const slug of ['abc', 'a'.repeat(63), '0-9', '--a']) {
    assert.equal((await http.post('/api/client-portals', { name: 'x', slug })).status, 200, slug);
  }
  const { body } = await http.post('/api/client-portals', { name: 'x', slug: 'valid-one' });
  assert.equal((await http.patch(`/api/client-portals/${body.id}`, { slug: 'Not-Valid' })).status, 400);
});

test('other fields: name required 1-200, addresses validated (400)', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const cases: Array<[unknown, RegExp]> = [
    [{ slug: 'abc' }, /name/],
    [{ name: '', slug: 'abc' }, /name/],
    [{ name: 'x'.repeat(201), slug: 'abc' }, /name/],
    [{ name: 'x', slug: 'abc', allowedEmails: ['not-an-address'] }, /allowedEmails.*not-an-address/],
    [{ name: 'x', slug: 'abc', allowedEmails: 'dana@acme.com' }, /allowedEmails/],
    [{ name: 'x', slug: 'abc', allowedEmails: [7] }, /allowedEmails/],
  ];
  for (const [body, message] of cases) {
    const response = await http.post('/api/client-portals', body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.match(response.body.error, message);
  }
  const { body } = await http.post('/api/client-portals', { name: 'x', slug: 'abc' });
  assert.deepEqual((await http.get(`/api/client-portals/${body.id}`)).body.portal.allowedEmails, [], 'no addresses yet: nobody can sign in');
  const badPatch = await http.patch(`/api/client-portals/${body.id}`, { allowedEmails: ['a@b.com', 'bad@'] });
  assert.equal(badPatch.status, 400);
  assert.match(badPatch.body.error, /bad@/);
  assert.equal((await http.patch(`/api/client-portals/${body.id}`, { name: '' })).status, 400);
});

test('a slug is unique across the service: taken by anyone → 422', async (t) => {
  const app = await startApp(t);
  const alice = await app.createAccount('professional');
  const bob = await app.createAccount('professional');
  const first = await alice.http.post('/api/client-portals', { name: 'A', slug: 'shared-name' });
  assert.equal(first.status, 200);

  const sameAccount = await alice.http.post('/api/client-portals', { name: 'A2', slug: 'shared-name' });
  assert.equal(sameAccount.status, 422);
  assert.match(sameAccount.body.error, /taken/);
  const otherAccount = await bob.http.post('/api/client-portals', { name: 'B', slug: 'shared-name' });
  assert.equal(otherAccount.status, 422);
  assert.match(otherAccount.body.error, /taken/);

  const bobs = (await bob.http.post('/api/client-portals', { name: 'B', slug: 'bob-portal' })).body.id;
  assert.equal((await bob.http.patch(`/api/client-portals/${bobs}`, { slug: 'shared-name' })).status, 422, 'moving onto a taken slug');
  assert.equal((await bob.http.patch(`/api/client-portals/${bobs}`, { slug: 'bob-portal' })).status, 200, 'keeping its own slug');

  const racing = await Promise.all(['x', 'y', 'z', 'w'].map((name) => bob.http.post('/api/client-portals', { name, slug: 'raced' })));
  assert.deepEqual(racing.map((r) => r.status).sort(), [200, 422, 422, 422], 'concurrent creations: one wins');

  await alice.http.delete(`/api/client-portals/${first.body.id}`);
  assert.equal((await bob.http.post('/api/client-portals', { name: 'B', slug: 'shared-name' })).status, 200, 'free again once deleted');
});

test('assigning and unassigning links; Link objects in the detail; deleting the portal keeps the links', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const other = await app.createAccount('professional');
  const deck = await createLink(http, 'deck', 'deck.txt', { hasWatermark: '1' });
  const model = await createLink(http, 'model', 'model.txt', { addPassword: '1', password: 'pw' });
  const foreign = await createLink(other.http, 'theirs', 'theirs.txt');
  const id = (await http.post('/api/client-portals', { name: 'P', slug: 'links-test' })).body.id;

  assert.deepEqual((await http.post(`/api/client-portals/${id}/links`, { linkIds: [deck, model, deck] })).body, { ok: true });
  assert.deepEqual((await http.post(`/api/client-portals/${id}/links`, { linkIds: [deck] })).body, { ok: true }, 'twice is harmless');
  const links = (await http.get(`/api/client-portals/${id}`)).body.portal.links;
  assert.deepEqual(
    links.map((link: any) => link.id),
    [deck, model],
  );
  assert.deepEqual(Object.keys(links[0]).sort(), ['has_watermark', 'id', 'mime', 'name', 'requires_password', 'views']);
  const { settings: _settings, document: _document, viewer_url: _viewerUrl, ...linkObject } = (await http.get(`/api/links/${deck}`)).body;
  assert.deepEqual(links[0], linkObject, "the spec's Link object, without what GET /api/links/{id} adds beside it");
  assert.equal(links[1].requires_password, true);

  const withForeign = await http.post(`/api/client-portals/${id}/links`, { linkIds: [model, foreign] });
  assert.equal(withForeign.status, 404);
  assert.match(withForeign.body.error, new RegExp(foreign));
  const unknown = await http.post(`/api/client-portals/${id}/links`, { linkIds: ['NoSuchLinkAnywhere1'] });
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error, /NoSuchLinkAnywhere1/);
  assert.equal((await http.post(`/api/client-portals/${id}/links`, { linkIds: [] })).status, 400);
  assert.equal((await http.post(`/api/client-portals/${id}/links`, { linkIds: ['bad id'] })).status, 400);
  assert.equal((await http.post(`/api/client-portals/${id}/links`, {})).status, 400);
  assert.equal((await http.get(`/api/client-portals/${id}`)).body.portal.links.length, 2, 'a refused request assigns nothing');

  assert.deepEqual((await http.delete(`/api/client-portals/${id}/links/${model}`)).body, { ok: true });
  assert.deepEqual(
    (await http.get(`/api/client-portals/${id}`)).body.portal.links.map((link: any) => link.id),
    [deck],
  );
  assert.equal((await http.delete(`/api/client-portals/${id}/links/${model}`)).status, 404, 'no longer assigned');
  assert.equal((await http.get(`/api/links/${model}`)).status, 200, 'unassigning keeps the link');

  await http.delete(`/api/links/${deck}`);
  assert.deepEqual((await http.get(`/api/client-portals/${id}`)).body.portal.links, [], 'a deleted link leaves the portal');

  await http.post(`/api/client-portals/${id}/links`, { linkIds: [model] });
  await http.delete(`/api/client-portals/${id}`);
  assert.equal((await http.get(`/api/links/${model}`)).status, 200, 'deleting the portal keeps its links');
});

test('tenancy: another account gets 404 on every portal route', async (t) => {
  const app = await startApp(t);
  const owner = await app.createAccount('professional');
  const stranger = await app.createAccount('professional');
  const link = await createLink(owner.http, 'x', 'x.txt');
  const strangersLink = await createLink(stranger.http, 'y', 'y.txt');
  const id = (await owner.http.post('/api/client-portals', { name: 'Private', slug: 'private-portal', allowedEmails: ['a@b.com'] })).body.id;
  await owner.http.post(`/api/client-portals/${id}/links`, { linkIds: [link] });

  const attempts: Array<[string, string, unknown?]> = [
    ['GET', `/api/client-portals/${id}`],
    ['PATCH', `/api/client-portals/${id}`, { name: 'mine now' }],
    ['PUT', `/api/client-portals/${id}`, { name: 'mine now' }],
    ['POST', `/api/client-portals/${id}`, { name: 'mine now' }],
    ['PATCH', `/api/client-portals/${id}`, {}],
    ['DELETE', `/api/client-portals/${id}`],
    ['POST', `/api/client-portals/${id}/links`, { linkIds: [strangersLink] }],
    ['DELETE', `/api/client-portals/${id}/links/${link}`],
  ];
  for (const [method, path, body] of attempts) {
    const response = await stranger.http.request(method, path, body);
    assert.equal(response.status, 404, `${method} ${path}`);
    assert.match(response.body.error, /Portal .* not found/);
  }
  assert.deepEqual((await stranger.http.get('/api/client-portals')).body, { portals: [] });

  const strangersPortal = (await stranger.http.post('/api/client-portals', { name: 'S', slug: 'strangers' })).body.id;
  const borrowed = await stranger.http.post(`/api/client-portals/${strangersPortal}/links`, { linkIds: [link] });
  assert.equal(borrowed.status, 404, "another account's link cannot be assigned");
  assert.match(borrowed.body.error, new RegExp(`Link ${link}`));

  const intact = (await owner.http.get(`/api/client-portals/${id}`)).body.portal;
  assert.equal(intact.name, 'Private');
  assert.deepEqual(
    intact.links.map((l: any) => l.id),
    [link],
  );
});

test('portals need an API key and the professional plan', async (t) => {
  const app = await startApp(t);
  const free = await app.createAccount('free');
  assert.equal((await app.http().get('/api/client-portals')).status, 401);
  assert.equal((await free.http.get('/api/client-portals')).status, 403);
  assert.equal((await free.http.post('/api/client-portals', { name: 'x', slug: 'free-one' })).status, 403);
});
