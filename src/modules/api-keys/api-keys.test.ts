import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createHttpClient } from '../../../test/helpers/http.js';

test('create answers the full key once; list shows it masked', async (t) => {
  const { createAccount } = await startApp(t);
  const { http } = await createAccount('professional');

  const created = await http.post('/api/api-keys', { name: 'ci deploys' });
  assert.equal(created.status, 200);
  assert.deepEqual(Object.keys(created.body).sort(), ['api_key', 'message']);
  assert.deepEqual(Object.keys(created.body.api_key).sort(), ['id', 'key', 'name']);
  assert.match(created.body.api_key.key, /^lvk_[0-9A-Za-z]{40}$/);
  assert.equal(created.body.api_key.name, 'ci deploys');
  assert.equal(typeof created.body.message, 'string');

  const listed = await http.get('/api/api-keys');
  assert.equal(listed.status, 200);
  const key = listed.body.api_keys.find((k: any) => k.id === created.body.api_key.id);
  assert.equal(key.key_prefix, `${created.body.api_key.key.slice(0, 8)}••••••••`);
  assert.equal(key.active, true);
  assert.equal(key.total_requests, 0);
  assert.equal(key.name, 'ci deploys');
  assert.equal(key.key, undefined);
  assert.ok(!JSON.stringify(listed.body).includes(created.body.api_key.key.slice(8)), 'no secret in the listing');
});

test('names must be 1-100 characters', async (t) => {
  const { createAccount } = await startApp(t);
  const { http } = await createAccount('professional');
  for (const body of [{ name: '' }, { name: 'x'.repeat(101) }, {}, { name: 42 }]) {
    const response = await http.post('/api/api-keys', body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.match(response.body.error, /name/);
  }
  assert.equal((await http.post('/api/api-keys', { name: 'x'.repeat(100) })).status, 200);
});

test('at most 5 keys; the 6th is 422 and revoked keys do not count', async (t) => {
  const { createAccount } = await startApp(t);
  const { http } = await createAccount('professional'); // holds "default"
  const ids: number[] = [];
  for (let i = 0; i < 4; i++) ids.push((await http.post('/api/api-keys', { name: `k${i}` })).body.api_key.id);
  const sixth = await http.post('/api/api-keys', { name: 'one too many' });
  assert.equal(sixth.status, 422);
  assert.match(sixth.body.error, /5/);

  assert.equal((await http.delete(`/api/api-keys/${ids[0]}`)).status, 200);
  assert.equal((await http.post('/api/api-keys', { name: 'replacement' })).status, 200);
});

test('concurrent creations cannot exceed 5 keys', async (t) => {
  const { createAccount } = await startApp(t);
  const { http } = await createAccount('professional');
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => http.post('/api/api-keys', { name: `k${i}` })));
  assert.equal(results.filter((r) => r.status === 200).length, 4);
  assert.equal(results.filter((r) => r.status === 422).length, 6);
  assert.equal((await http.get('/api/api-keys')).body.api_keys.length, 5);
});

test('toggle deactivates and reactivates; an inactive key answers 401', async (t) => {
  const { createAccount, url } = await startApp(t);
  const { http } = await createAccount('professional');
  const other = (await http.post('/api/api-keys', { name: 'other' })).body.api_key;
  const otherHttp = createHttpClient(url, other.key);

  const off = await http.put(`/api/api-keys/${other.id}/toggle`);
  assert.equal(off.status, 200);
  assert.equal(off.body.active, false);
  assert.equal(typeof off.body.message, 'string');
  assert.equal((await otherHttp.get('/api/api-keys')).status, 401);
  assert.equal((await http.get('/api/api-keys')).body.api_keys.find((k: any) => k.id === other.id).active, false);

  // POST is accepted wherever PUT is canonical
  const on = await http.post(`/api/api-keys/${other.id}/toggle`);
  assert.deepEqual(on.body, { active: true, message: on.body.message });
  assert.equal((await otherHttp.get('/api/api-keys')).status, 200);
});

test('delete revokes permanently', async (t) => {
  const { createAccount, url } = await startApp(t);
  const { http } = await createAccount('professional');
  const doomed = (await http.post('/api/api-keys', { name: 'doomed' })).body.api_key;

  const deleted = await http.delete(`/api/api-keys/${doomed.id}`);
  assert.equal(deleted.status, 200);
  assert.equal(typeof deleted.body.message, 'string');
  assert.equal((await createHttpClient(url, doomed.key).get('/api/api-keys')).status, 401);
  assert.equal((await http.put(`/api/api-keys/${doomed.id}/toggle`)).status, 404);
  assert.equal((await http.delete(`/api/api-keys/${doomed.id}`)).status, 404);
  assert.ok(!(await http.get('/api/api-keys')).body.api_keys.some((k: any) => k.id === doomed.id));
});

test("another account's keys answer 404", async (t) => {
  const { createAccount } = await startApp(t);
  const alice = await createAccount('professional');
  const bob = await createAccount('professional');
  const aliceKeyId = (await alice.http.get('/api/api-keys')).body.api_keys[0].id;

  assert.equal((await bob.http.put(`/api/api-keys/${aliceKeyId}/toggle`)).status, 404);
  assert.equal((await bob.http.delete(`/api/api-keys/${aliceKeyId}`)).status, 404);
  assert.ok(!(await bob.http.get('/api/api-keys')).body.api_keys.some((k: any) => k.id === aliceKeyId));
  assert.equal((await alice.http.get('/api/api-keys')).body.api_keys[0].active, true);
});

test('ids that are not positive integers are 400', async (t) => {
  const { createAccount } = await startApp(t);
  const { http } = await createAccount('professional');
  assert.equal((await http.put('/api/api-keys/abc/toggle')).status, 400);
  assert.equal((await http.delete('/api/api-keys/0')).status, 400);
  assert.equal((await http.delete('/api/api-keys/99999')).status, 404);
});

test('total_requests is exact after 200 concurrent requests', async (t) => {
  const { createAccount, url } = await startApp(t);
  const { http, apiKey } = await createAccount('professional');
  const counted = createHttpClient(url, apiKey);
  const statuses = await Promise.all(Array.from({ length: 200 }, () => counted.get('/api/api-keys').then((r) => r.status)));
  assert.ok(statuses.every((s) => s === 200));
  const listing = await http.get('/api/api-keys');
  const key = listing.body.api_keys[0];
  assert.equal(key.total_requests, 201, 'the 200 requests plus the listing itself');
  assert.ok(key.last_used_at);
});
