import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { listFiles, uploadForm } from '../../../test/helpers/files.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency.service.js';

type TestApp = Awaited<ReturnType<typeof startApp>>;

/** POSTs a multipart form with an Idempotency-Key, answering status, headers and JSON body. */
async function sendWithKey(app: TestApp, apiKey: string, route: string, form: FormData, key: string, method = 'POST') {
  const response = await fetch(`${app.url}${route}`, { method, body: form, headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': key } });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as any };
}

async function linkTotal(app: TestApp, apiKey: string): Promise<number> {
  const response = await app.http(apiKey).get('/api/links');
  return response.body.pagination.total;
}

const blobCount = async (app: TestApp) => (await listFiles(path.join(app.dataDir, 'blobs'))).filter((file) => !file.includes('/.tmp/')).length;

test('an upload sent twice with one Idempotency-Key is stored once; the retry gets the first answer, marked replayed', async (t) => {
  const app = await startApp(t);
  const { apiKey } = await app.createAccount();
  const key = randomUUID();

  const first = await sendWithKey(app, apiKey, '/api/upload', uploadForm('first bytes', 'deck.txt'), key);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.replayed, null);
  const retry = await sendWithKey(app, apiKey, '/api/upload', uploadForm('first bytes', 'deck.txt'), key);
  assert.equal(retry.status, 200);
  assert.equal(retry.replayed, 'true');
  assert.deepEqual(retry.body, first.body);
  assert.equal(await linkTotal(app, apiKey), 1);
  assert.equal(await blobCount(app), 1, 'the retry stored nothing');

  // Without a key, or with another one, each upload is new.
  assert.equal((await sendWithKey(app, apiKey, '/api/upload', uploadForm('other', 'b.txt'), randomUUID())).status, 200);
  assert.equal(await linkTotal(app, apiKey), 2);
});

test('twins sent at the same time make one link: the one that commits second answers the first one’s result and leaves no blob', async (t) => {
  const app = await startApp(t);
  const { apiKey } = await app.createAccount();
  const key = randomUUID();
  const content = Buffer.alloc(2 * 1024 * 1024, 'a');
  const answers = await Promise.all([1, 2, 3].map(() => sendWithKey(app, apiKey, '/api/upload', uploadForm(content, 'big.txt'), key)));
  for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(new Set(answers.map((answer) => answer.body.id)).size, 1);
  assert.equal(answers.filter((answer) => answer.replayed === null).length, 1, 'one first answer');
  assert.equal(await linkTotal(app, apiKey), 1);
  assert.equal(await blobCount(app), 1);
});

test('a replacement retried with its key is one new version; the key cannot name another request', async (t) => {
  const app = await startApp(t);
  const { apiKey } = await app.createAccount();
  const upload = await sendWithKey(app, apiKey, '/api/upload', uploadForm('v1', 'a.txt'), randomUUID());
  const linkId = upload.body.id as string;
  const key = randomUUID();

  const replaced = await sendWithKey(app, apiKey, `/api/links/${linkId}/file`, uploadForm('v2', 'a.txt'), key, 'PUT');
  assert.deepEqual([replaced.status, replaced.body], [200, { ok: true, version: 2 }]);
  const again = await sendWithKey(app, apiKey, `/api/links/${linkId}/file`, uploadForm('v2', 'a.txt'), key, 'PUT');
  assert.deepEqual([again.status, again.replayed, again.body], [200, 'true', { ok: true, version: 2 }]);
  const next = await sendWithKey(app, apiKey, `/api/links/${linkId}/file`, uploadForm('v3', 'a.txt'), randomUUID(), 'PUT');
  assert.deepEqual(next.body, { ok: true, version: 3 }, 'the retry made no version of its own');

  const misused = await sendWithKey(app, apiKey, '/api/upload', uploadForm('x', 'x.txt'), key);
  assert.equal(misused.status, 422);
  assert.match(misused.body.error, /Idempotency-Key was used for another request/);
});

test('a refused request does not use up its key; keys are per account; malformed keys are a 400', async (t) => {
  const app = await startApp(t);
  const owner = await app.createAccount();
  const other = await app.createAccount();
  const key = randomUUID();

  const refused = await sendWithKey(app, owner.apiKey, '/api/upload', uploadForm('x', 'a.txt', { expiration: 'forever' }), key);
  assert.equal(refused.status, 400);
  const accepted = await sendWithKey(app, owner.apiKey, '/api/upload', uploadForm('x', 'a.txt'), key);
  assert.deepEqual([accepted.status, accepted.replayed], [200, null]);

  const elsewhere = await sendWithKey(app, other.apiKey, '/api/upload', uploadForm('y', 'b.txt'), key);
  assert.deepEqual([elsewhere.status, elsewhere.replayed], [200, null]);
  assert.notEqual(elsewhere.body.id, accepted.body.id);

  for (const malformed of ['has space', 'x'.repeat(256), 'caf\u00e9']) {
    const response = await fetch(`${app.url}/api/upload`, {
      method: 'POST',
      body: uploadForm('z', 'c.txt'),
      headers: { authorization: `Bearer ${owner.apiKey}`, 'idempotency-key': malformed },
    });
    assert.equal(response.status, 400, malformed);
  }
  assert.equal(await linkTotal(app, owner.apiKey), 1);
});

test('a key is kept 24 hours: after that the same key uploads anew, and the hourly sweep deletes it', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { apiKey } = await app.createAccount();
  const key = randomUUID();
  const first = await sendWithKey(app, apiKey, '/api/upload', uploadForm('a', 'a.txt'), key);
  now += IDEMPOTENCY_WINDOW_MS - 1000;
  assert.equal((await sendWithKey(app, apiKey, '/api/upload', uploadForm('a', 'a.txt'), key)).replayed, 'true');
  now += 2000;
  const later = await sendWithKey(app, apiKey, '/api/upload', uploadForm('a', 'a.txt'), key);
  assert.deepEqual([later.status, later.replayed], [200, null]);
  assert.notEqual(later.body.id, first.body.id);

  now += IDEMPOTENCY_WINDOW_MS + 1000;
  assert.equal(await app.runtime.services.idempotency.sweep(), 1);
});

test('a template, a portal or a data room created twice with one Idempotency-Key is made once, also when both are sent together', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('business');
  const child = (await sendWithKey(app, apiKey, '/api/upload', uploadForm('deck', 'deck.txt'), randomUUID())).body.id as string;
  const postJson = async (route: string, body: object, key: string) => {
    const response = await fetch(`${app.url}${route}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
    });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as any };
  };
  const creations = [
    { route: '/api/templates', body: { name: 'NDA pack' }, count: async () => (await http.get('/api/templates')).body.templates.length },
    {
      route: '/api/client-portals',
      body: { name: 'Acme', slug: 'acme' },
      count: async () => (await http.get('/api/client-portals')).body.portals.length,
    },
    {
      route: '/api/links/room',
      body: { name: 'Deal room', children_ids: [child] },
      count: async () => (await http.get('/api/links/rooms')).body.rooms.length,
    },
  ];
  for (const { route, body, count } of creations) {
    const key = randomUUID();
    const first = await postJson(route, body, key);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const retry = await postJson(route, body, key);
    assert.deepEqual([retry.status, retry.replayed, retry.body], [200, 'true', first.body], route);
    const twins = await Promise.all([0, 1, 2].map(() => postJson(route, body, randomUUID()).then(() => postJson(route, body, key))));
    assert.ok(
      twins.every((twin) => twin.body.id === first.body.id),
      route,
    );
    assert.equal(await count(), route === '/api/client-portals' ? 1 : 4, `${route}: one made with the key, three with keys of their own`);
    if (route !== '/api/templates') assert.equal((await postJson('/api/templates', { name: 'other' }, key)).status, 422, 'a key names one request');
  }
});
