import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import { createHttpClient } from '../helpers/http.js';
import { signedInPerson } from '../helpers/people.js';

test('every /api route needs a valid bearer key', async (t) => {
  const { url, createAccount } = await startApp(t);
  await createAccount('professional');
  const unknownKey = `lvk_${'A'.repeat(40)}`;
  const cases: Array<[string, Record<string, string>]> = [
    ['missing', {}],
    ['not bearer', { authorization: `Basic ${unknownKey}` }],
    ['malformed', { authorization: 'Bearer not-a-key' }],
    ['unknown', { authorization: `Bearer ${unknownKey}` }],
  ];
  for (const [label, headers] of cases) {
    const response = await createHttpClient(url).request('GET', '/api/api-keys', undefined, headers);
    assert.equal(response.status, 401, label);
    assert.equal(typeof response.body.error, 'string', label);
    assert.deepEqual(Object.keys(response.body), ['error']);
  }
});

test('plan matrix: API needs professional, integrations and branding need business', async (t) => {
  const { createAccount } = await startApp(t);
  const routes: Array<[string, string]> = [
    ['GET', '/api/api-keys'],
    ['GET', '/api/integrations'],
    ['GET', '/api/branding'],
    ['DELETE', '/api/branding/logo'],
  ];
  const allowed: Record<string, boolean[]> = {
    free: [false, false, false, false],
    professional: [true, false, false, false],
    business: [true, true, true, true],
  };
  for (const plan of ['free', 'professional', 'business'] as const) {
    const { http } = await createAccount(plan);
    for (const [index, [method, route]] of routes.entries()) {
      const response = await http.request(method, route);
      if (allowed[plan]![index]) {
        assert.notEqual(response.status, 403, `${plan} ${route}`);
        assert.notEqual(response.status, 401, `${plan} ${route}`);
      } else {
        assert.equal(response.status, 403, `${plan} ${route}`);
        assert.match(response.body.error, index === 0 ? /professional/ : /business/);
      }
    }
  }
});

test('a plan change takes effect on the next request', async (t) => {
  const { createAccount, runtime } = await startApp(t);
  const { http, email } = await createAccount('professional');
  assert.equal((await http.get('/api/api-keys')).status, 200);
  await runtime.services.accounts.setPlan(email, 'free');
  assert.equal((await http.get('/api/api-keys')).status, 403);
});

test('errors are JSON sentences with the statuses DESIGN fixes', async (t) => {
  const { url, createAccount } = await startApp(t);
  const { apiKey, http } = await createAccount('professional');
  const auth = { authorization: `Bearer ${apiKey}` };

  const unknown = await http.get('/nowhere');
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error, /not found/);

  const unknownApi = await http.get('/api/nowhere');
  assert.equal(unknownApi.status, 404);

  const malformed = await fetch(`${url}/api/api-keys`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{"name":',
  });
  assert.equal(malformed.status, 400);
  assert.equal(typeof ((await malformed.json()) as any).error, 'string');

  const wrongType = await fetch(`${url}/api/api-keys`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'text/plain' },
    body: 'name=x',
  });
  assert.equal(wrongType.status, 400);
  assert.equal(typeof ((await wrongType.json()) as any).error, 'string');

  const schema = await http.post('/api/api-keys', { name: 7 });
  assert.equal(schema.status, 400);
  assert.match(schema.body.error, /"name"/);
});

test('the same 400 on both databases: a day that does not exist, NUL in a query, an id beyond the column, a page beyond the last a list gives', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const linkId = await createLink(http, 'x', 'x.txt');
  await createLink(http, 'y', 'y.txt');
  for (const expiresAt of [
    '2031-02-30T00:00:00Z',
    '2031-04-31T12:00:00Z',
    '2031-01-01T24:00:00Z',
    '2031-13-01T00:00:00Z',
    '2031-01-01T10:60:00+01:00',
  ]) {
    const refused = await http.patch(`/api/links/${linkId}`, { expiresAt });
    assert.equal(refused.status, 400, expiresAt);
    assert.match(refused.body.error, /expiresAt/);
  }
  const leapDay = await http.patch(`/api/links/${linkId}`, { expiresAt: '2032-02-29T23:59:59+14:00' });
  assert.equal(leapDay.status, 200, JSON.stringify(leapDay.body));
  assert.equal(leapDay.body.settings.expiresAt, '2032-02-29T09:59:59.000Z');

  const nul = await http.get('/api/links?q=%00');
  assert.equal(nul.status, 400);
  assert.match(nul.body.error, /NUL character/);
  assert.equal((await http.get(`/api/links/${linkId}%00`)).status, 400);

  const person = await signedInPerson(app, accountId, 'owner');
  for (const id of [2_147_483_648, 9_007_199_254_740_991]) {
    assert.equal((await person.client.post('/api/auth/switch-account', { accountId: id })).status, 400, String(id));
  }

  const forged = Buffer.from(JSON.stringify(['active', Date.now(), linkId, 9_007_199_254_740_991])).toString('base64url');
  assert.equal((await http.get(`/api/links?limit=1&cursor=${forged}`)).status, 400);
  const cursor = (await http.get('/api/links?limit=1')).body.nextCursor as string;
  assert.equal((await http.get(`/api/links?limit=1&cursor=${cursor}`)).status, 200, 'a cursor the list gave out');
});

test('rate limit per key: 429 with Retry-After and RateLimit headers', async (t) => {
  const { createAccount } = await startApp(t, { env: { RATE_LIMIT_PER_MINUTE: '5' } });
  const { http } = await createAccount('professional');
  const other = await createAccount('professional');
  for (let i = 0; i < 5; i++) {
    const response = await http.get('/api/api-keys');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('ratelimit-limit'), '5');
    assert.equal(response.headers.get('ratelimit-remaining'), String(4 - i));
  }
  const limited = await http.get('/api/api-keys');
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.ok(Number(limited.headers.get('ratelimit-reset')) <= 60);
  assert.match(limited.body.error, /rate limit/i);
  assert.equal((await other.http.get('/api/api-keys')).status, 200, 'another key has its own window');
});

test('OpenAPI 3.1 document lists every API route with response schemas', async (t) => {
  const { url } = await startApp(t);
  const spec = (await (await fetch(`${url}/api/openapi.json`)).json()) as any;
  assert.equal(spec.openapi, '3.1.0');
  for (const [path, methods] of [
    ['/api/api-keys', ['get', 'post']],
    ['/api/api-keys/{id}/toggle', ['put']],
    ['/api/api-keys/{id}', ['delete']],
  ] as const) {
    for (const method of methods) {
      const operation = spec.paths[path]?.[method];
      assert.ok(operation, `${method} ${path}`);
      assert.ok(operation.responses['200'].content['application/json'].schema, `${method} ${path} 200 schema`);
    }
  }
  const docs = await fetch(`${url}/docs`, { redirect: 'follow' });
  assert.equal(docs.status, 200);
  assert.match(await docs.text(), /<html/i);
});

test('health, readiness and metrics', async (t) => {
  const metricsToken = 'metrics-token-for-this-test';
  const { url, createAccount } = await startApp(t, { env: { METRICS_TOKEN: metricsToken } });
  assert.deepEqual(await (await fetch(`${url}/healthz`)).json(), { ok: true });
  assert.deepEqual(await (await fetch(`${url}/readyz`)).json(), { ok: true });
  const { http } = await createAccount('professional');
  await http.get('/api/api-keys');
  const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
  assert.match(metrics, /http_request_duration_seconds_count\{method="GET",route="\/api\/api-keys",status="200"\} 1/);
  assert.match(metrics, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/api-keys",status="200"\}/);
  // The job runner's series share the registry (and its token).
  assert.match(metrics, /^# TYPE jobs_run_total counter$/m);
  assert.match(metrics, /^# TYPE job_duration_seconds histogram$/m);
});
