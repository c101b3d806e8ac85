import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { createLink, downloadOriginal, downloadToken, sha256 } from '../helpers/files.js';
import { captureLog, INVALID_UTF8, rawRequest, Rng, sendRaw } from '../helpers/fuzz.js';
import {
  CONTENT_TYPES,
  formBody,
  ID,
  jsonBody,
  multipartBody,
  operationsOf,
  urlOf,
  type Operation,
  type Pools,
  type Schema,
} from '../helpers/fuzz-inputs.js';
import { VisitorClient } from '../helpers/visitor.js';

// Bounded on every axis: requests, wall time, each request's own time.
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 40_000);
const REQUEST_TIMEOUT_MS = 10_000;
const CONCURRENCY = 6;

/**
 * The only 5xx a client may meet: a feature this server was deliberately started without,
 * answered the same whatever the request (payments: no STRIPE_SECRET_KEY here).
 */
const DOCUMENTED_5XX = [
  {
    status: 503,
    path: /^\/api\/stripe\//,
    body: /"error":"payments are not configured"/,
    reason: 'README "Paid downloads": without STRIPE_SECRET_KEY every /api/stripe/* endpoint answers 503 payments are not configured',
  },
  {
    status: 503,
    path: /^\/stripe\/return(\?|$)/,
    body: /Payments are not configured/,
    reason: 'the page Stripe sends an owner back to says the same as /api/stripe/* when payments are off',
  },
] as const;

const documented = (status: number, path: string, body?: string) =>
  DOCUMENTED_5XX.some((rule) => rule.status === status && rule.path.test(path) && (body === undefined || rule.body.test(body)));

/** Visitor pages and forms: hidden from the OpenAPI document, listed here (checked against the router below). */
const SLUG: Schema = { type: 'string', maxLength: 63 };
const GATE_FORM: Schema = { type: 'object', properties: { email: { type: 'string' }, code: { type: 'string' }, password: { type: 'string' } } };
const pathParams = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name: name!,
    in: 'path' as const,
    schema: name === 'slug' ? SLUG : name === 'accountId' ? { type: 'integer' } : ID,
  }));
const page = (method: string, path: string, extra: Partial<Operation> = {}): Operation => ({
  method,
  path,
  params: pathParams(path),
  visitor: true,
  ...extra,
});
const VISITOR_PAGES: Operation[] = [
  ...['/v/{id}', '/v/{id}/d/{childId}'].flatMap((base) => [
    page('GET', base, { params: [...pathParams(base), { name: 'session_id', in: 'query', schema: { type: 'string', maxLength: 300 } }] }),
    ...['otp', 'otp/verify', 'password', 'access'].map((gate) => page('POST', `${base}/${gate}`, { body: GATE_FORM, form: true })),
    page('GET', `${base}/status`),
    page('GET', `${base}/content`),
    page('POST', `${base}/checkout`, { body: { type: 'object', properties: { email: { type: 'string', maxLength: 254 } } } }),
    page('POST', `${base}/track`, {
      body: {
        type: 'object',
        properties: { page: { type: 'integer', minimum: 1, maximum: 100_000 }, seconds: { type: 'integer', minimum: 1, maximum: 3600 } },
      },
    }),
  ]),
  page('GET', '/p/{slug}'),
  page('POST', '/p/{slug}/email', { body: GATE_FORM, form: true }),
  page('POST', '/p/{slug}/verify', { body: GATE_FORM, form: true }),
  page('POST', '/p/{slug}/sign-out'),
  page('GET', '/p/{slug}/open/{linkId}'),
  page('GET', '/stripe/return', { params: [{ name: 'account', in: 'query', schema: { type: 'string' } }] }),
  page('GET', '/stripe/refresh'),
  page('GET', '/tls/ask', { params: [{ name: 'domain', in: 'query', schema: { type: 'string', maxLength: 253 } }] }),
  page('GET', '/branding/{accountId}/{file}', {
    params: [
      { name: 'accountId', in: 'path', schema: { type: 'integer' } },
      { name: 'file', in: 'path', schema: { type: 'string', pattern: '^logo-[0-9A-Za-z]{12}\\.png$' } },
    ],
  }),
  page('GET', '/assets/viewer.js'),
  page('GET', '/healthz'),
  page('GET', '/readyz'),
];

interface Outcome {
  label: string;
  method: string;
  url: string;
  status?: number;
  body?: string;
  timedOut?: boolean;
  /** the client gave up on purpose (a cut upload): no answer is the right answer */
  clientClosed?: boolean;
  fetchError?: string;
  ms?: number;
}

async function viaFetch(pools: Pools, label: string, method: string, url: string, headers: Record<string, string>, body?: Buffer): Promise<Outcome> {
  try {
    // A connection per request: an answer given before the body was read leaves no half-used keep-alive connection behind.
    const response = await fetch(`http://127.0.0.1:${pools.port}${url}`, {
      method,
      headers: { ...headers, connection: 'close' },
      body: body && method !== 'GET' && method !== 'HEAD' ? new Uint8Array(body) : undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    return { label, method, url, status: response.status, body: text.slice(0, 300) };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return { label, method, url, timedOut, fetchError: timedOut ? undefined : String((error as Error).cause ?? error) };
  }
}

function authHeader(rng: Rng, pools: Pools): Record<string, string> {
  if (rng.chance(0.9)) return { authorization: `Bearer ${pools.apiKey}` };
  return rng.pick<Record<string, string>>([
    {},
    { authorization: 'Bearer lvk_nope' },
    { authorization: 'Basic Zm9vOmJhcg==' },
    { authorization: `Bearer ${'k'.repeat(5000)}` },
    { authorization: 'Bearer' },
  ]);
}

/** A JSON or form request to one operation, with its parameters, body and content type fuzzed. */
function fuzzOperation(rng: Rng, op: Operation, pools: Pools): Promise<Outcome> {
  const url = urlOf(rng, op, pools);
  const headers: Record<string, string> = op.visitor ? {} : authHeader(rng, pools);
  if (op.visitor && rng.chance(0.3))
    headers.cookie = rng.pick(['lv_visit=abc', 'lv_visit=%FF; lv_room=..', `lv_visit=${'c'.repeat(3000)}`, 'a=b; a=c; =; ;;', 'lv_portal=s%3Axx.yy']);
  if (url.includes('/content') && rng.chance(0.5))
    headers.range = rng.pick(['bytes=0-10', 'bytes=999999999999999999999-', 'bytes=-0', 'bytes=5-1', 'bytes=0-1,2-3,4-5', 'bytes=a-b', 'items=0-1']);
  let body: Buffer | undefined;
  if (op.multipart) {
    const boundary = `fuzz${rng.alnum(12)}`;
    body = multipartBody(rng, op, boundary, pools);
    headers['content-type'] = rng.chance(0.85)
      ? `multipart/form-data; boundary=${boundary}`
      : rng.pick([...CONTENT_TYPES, 'multipart/form-data; boundary=other']);
    if (rng.chance(0.3)) body = body.subarray(0, rng.int(body.length)); // cut, with a Content-Length that says so
  } else if (op.form) {
    body = formBody(rng, op, pools);
    headers['content-type'] = rng.chance(0.8) ? 'application/x-www-form-urlencoded' : rng.pick(CONTENT_TYPES);
    if (rng.chance(0.05)) body = Buffer.alloc(17 * 1024, 'a');
  } else if (op.body || op.method !== 'GET') {
    body = jsonBody(rng, op.body, pools);
    headers['content-type'] = rng.chance(0.8) ? 'application/json' : rng.pick(CONTENT_TYPES);
  }
  return viaFetch(pools, `${op.method} ${op.path}`, op.method, url, headers, body);
}

/** A multipart upload cut at a random byte, sent on a raw socket that then half-closes or drops. */
async function cutUpload(rng: Rng, op: Operation, pools: Pools): Promise<Outcome> {
  const boundary = `fuzz${rng.alnum(12)}`;
  const body = multipartBody(rng, op, boundary, pools);
  const url = urlOf(rng, { ...op, params: op.params.filter((p) => p.in === 'path') }, pools);
  const after = rng.pick(['end', 'destroy'] as const);
  const headers: [string, string][] = [
    ['Host', '127.0.0.1'],
    ['Authorization', `Bearer ${pools.apiKey}`],
    ['Content-Type', `multipart/form-data; boundary=${boundary}`],
    ['Content-Length', String(body.length)],
  ];
  const request = rawRequest(op.method, url, headers, body.subarray(0, rng.int(body.length)));
  const outcome = await sendRaw(pools.port, request, { after, holdMs: rng.int(50), timeoutMs: REQUEST_TIMEOUT_MS });
  return { label: `cut ${op.method} ${op.path} (${after})`, method: op.method, url, ...outcome, clientClosed: true };
}

/** A fetch whose streamed body is aborted mid-way: the client really goes away. */
async function abortedStream(rng: Rng, op: Operation, pools: Pools): Promise<Outcome> {
  const boundary = `fuzz${rng.alnum(12)}`;
  const body = multipartBody(rng, op, boundary, pools);
  const url = urlOf(rng, { ...op, params: op.params.filter((p) => p.in === 'path') }, pools);
  const abort = new AbortController();
  const sent = body.subarray(0, rng.int(body.length));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(sent));
      setTimeout(() => abort.abort(), 10 + rng.int(40));
    },
  });
  try {
    const response = await fetch(`http://127.0.0.1:${pools.port}${url}`, {
      method: op.method,
      headers: { authorization: `Bearer ${pools.apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, connection: 'close' },
      body: stream,
      duplex: 'half',
      signal: AbortSignal.any([abort.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    } as RequestInit);
    return {
      label: `aborted stream ${op.method} ${op.path}`,
      method: op.method,
      url,
      status: response.status,
      body: (await response.text()).slice(0, 300),
    };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return { label: `aborted stream ${op.method} ${op.path}`, method: op.method, url, timedOut, clientClosed: !timedOut };
  }
}

/** Headers no fetch would send: huge, duplicated, contradictory, not UTF-8; and paths with raw bytes. */
async function rawHeaders(rng: Rng, op: Operation, pools: Pools): Promise<Outcome> {
  let target: string | Buffer = urlOf(rng, op, pools);
  const body = op.method === 'GET' ? Buffer.alloc(0) : Buffer.from('{}');
  const headers: [string, string | Buffer][] = [
    ['Host', '127.0.0.1'],
    ['Authorization', `Bearer ${pools.apiKey}`],
    ['Connection', 'close'],
  ];
  const length: [string, string] = ['Content-Length', String(body.length)];
  let variant = rng.int(13);
  switch (variant) {
    case 0:
      headers.push(['X-Huge', 'h'.repeat(20_000 + rng.int(60_000))], length);
      break;
    case 1:
      for (let i = 0; i < 300; i += 1) headers.push(['X-Dup', `v${i}`]);
      headers.push(length);
      break;
    case 2:
      headers.push(['Content-Length', '2'], ['Content-Length', '7']);
      break;
    case 3:
      headers.push(length, ['Transfer-Encoding', 'chunked']);
      break;
    case 4:
      headers.push(['Content-Type', 'application/json'], ['Content-Type', 'text/plain'], length);
      break;
    case 5:
      headers.splice(1, 1, ['Authorization', 'Bearer lvk_wrong'], ['Authorization', `Bearer ${pools.apiKey}`]);
      headers.push(length);
      break;
    case 6:
      headers.push(['Host', 'evil.example'], ['Cookie', 'lv_visit=a'], ['Cookie', 'lv_visit=b'], length);
      break;
    case 7:
      headers.splice(1, 1, ['Authorization', Buffer.concat([Buffer.from('Bearer '), rng.pick(INVALID_UTF8)])]);
      headers.push(['Cookie', Buffer.concat([Buffer.from('lv_visit='), rng.pick(INVALID_UTF8)])], ['User-Agent', rng.pick(INVALID_UTF8)], length);
      break;
    case 8:
      target = Buffer.concat([Buffer.from(String(target).split('?')[0]!), rng.pick(INVALID_UTF8), Buffer.from('/x')]);
      headers.push(length);
      break;
    case 9:
      headers.push(['Transfer-Encoding', 'chunked'], ['Content-Type', 'application/json']);
      // a chunked body that may stop before its last chunk: the client half-closes rather than wait forever
      return send(
        rawRequest(
          op.method === 'GET' ? 'POST' : op.method,
          target,
          headers,
          Buffer.from(rng.pick(['zz\r\n{}\r\n0\r\n\r\n', '2\r\n{}\r\n', '2\r\n{}\r\n0\r\n\r\n', 'ffffffffffffffff\r\n'])),
        ),
        'end',
      );
    case 10:
      headers.splice(0, 1, ['Host', Buffer.concat([Buffer.from('h'), rng.pick(INVALID_UTF8), Buffer.from('.example')])]);
      headers.push(length);
      break;
    case 11:
      headers.push(['Expect', '100-continue'], ['Content-Type', 'application/json'], length);
      break;
    default:
      headers.push(['Bad Header', 'x'], length);
      variant = 12;
  }
  return send(rawRequest(op.method, target, headers, body));

  async function send(request: Buffer, after: 'wait' | 'end' = 'wait'): Promise<Outcome> {
    const outcome = await sendRaw(pools.port, request, { after, timeoutMs: REQUEST_TIMEOUT_MS });
    return { label: `raw headers #${variant} ${op.method} ${op.path}`, method: op.method, url: String(target).slice(0, 200), ...outcome };
  }
}

/** Makes what the fuzz needs to exist: links (one gated of each kind), a room, a portal, a template, a spare key, an access request. */
async function preparePools(app: Awaited<ReturnType<typeof startApp>>): Promise<Pools> {
  const owner = await app.createAccount('business');
  const { http } = owner;
  const plain = await createLink(http, 'hello fuzz', 'hello.txt');
  const guarded = await createLink(http, 'secret', 'secret.txt', { addPassword: '1', password: 'correct horse' });
  const approval = await createLink(http, 'approval', 'approval.txt', { requiresApproval: '1' });
  const otp = await createLink(http, 'otp', 'otp.txt', { requiresOtp: '1', allowedDomains: 'example.com' });
  const room = await http.post('/api/links/room', { name: 'fuzz room', children_ids: [plain, approval] });
  const portal = await http.post('/api/client-portals', { name: 'Fuzz portal', slug: 'fuzz-portal', allowedEmails: ['client@example.com'] });
  await http.post(`/api/client-portals/${portal.body.id}/links`, { linkIds: [plain] });
  const template = await http.post('/api/templates', { name: 'fuzz template', hasWatermark: true });
  const spare = await http.post('/api/api-keys', { name: 'spare' });
  const keys = await http.get('/api/api-keys');
  const ownKeyId = keys.body.api_keys.find((key: { id: number }) => key.id !== spare.body.api_key.id).id;
  await new VisitorClient(app.url).post(`/v/${approval}/access`, { email: 'visitor@example.com' });
  const requests = await http.get(`/api/links/${approval}/requests`);
  for (const made of [room, portal, template, spare]) assert.equal(made.status, 200, JSON.stringify(made.body));
  return {
    port: Number(new URL(app.url).port),
    apiKey: owner.apiKey,
    accountId: owner.accountId,
    linkIds: [plain, guarded, approval, otp],
    roomId: room.body.id,
    portalIds: [portal.body.id],
    slugs: ['fuzz-portal'],
    intIds: [template.body.id, spare.body.api_key.id, ...requests.body.requests.map((request: { id: number }) => request.id)],
    ownKeyId,
  };
}

test(`fuzz: ${REQUESTS} requests over every route, no 5xx and no hang (FUZZ_SEED=${SEED})`, { timeout: 120_000 }, async (t) => {
  t.diagnostic(`FUZZ_SEED=${SEED} (set it to replay this run)`);
  const app = await startApp(t, { env: { RATE_LIMIT_PER_MINUTE: '1000000', LOG_LEVEL: 'warn', DNS_SERVERS: '127.0.0.1:9' } });
  const log = captureLog(app.runtime.log);
  // Every answer the server gave or began, seen from its side: a client that left cannot see a 500.
  const served: { method: string; url: string; res: ServerResponse }[] = [];
  app.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => served.push({ method: req.method ?? '', url: req.url ?? '', res }));

  const pools = await preparePools(app);
  const openapi = (await (await fetch(`${app.url}/api/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
  const apiOperations = operationsOf(openapi);
  for (const visitorPage of VISITOR_PAGES) {
    const url = visitorPage.path.replace(/\{\w+\}/g, (name) => `:${name.slice(1, -1)}`);
    assert.ok(app.app.hasRoute({ method: visitorPage.method as 'GET', url }), `the fuzz's visitor page ${visitorPage.method} ${url} exists`);
  }
  const operations = [...apiOperations, ...VISITOR_PAGES];
  const fileOperations = apiOperations.filter((op) => op.multipart);
  assert.ok(apiOperations.length > 40 && fileOperations.length >= 3, 'the OpenAPI document lists the API');

  const cases = (rng: Rng): Promise<Outcome> => {
    const roll = rng.next();
    if (roll < 0.6) return fuzzOperation(rng, rng.pick(operations), pools);
    if (roll < 0.72) return fuzzOperation(rng, rng.pick(fileOperations), pools);
    if (roll < 0.82) return cutUpload(rng, rng.pick(fileOperations), pools);
    if (roll < 0.87) return abortedStream(rng, rng.pick(fileOperations), pools);
    return rawHeaders(rng, rng.pick(operations), pools);
  };

  const outcomes: Outcome[] = [];
  const deadline = Date.now() + BUDGET_MS;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS && Date.now() < deadline) {
        const index = next++;
        const started = Date.now();
        const outcome = await cases(Rng.forRequest(SEED, index));
        outcomes.push({ ...outcome, label: `#${index} ${outcome.label}`, ms: Date.now() - started });
      }
    }),
  );
  t.diagnostic(`fuzz phase ${Date.now() - deadline + BUDGET_MS} ms`);
  // Let the server finish what the cut requests left behind before looking at its side.
  await sleep(500);

  const fails = outcomes.filter((o) => o.timedOut || (o.status !== undefined && o.status >= 500 && !documented(o.status, o.url, o.body)));
  const serverFails = served.filter(({ res, url }) => res.statusCode >= 500 && !documented(res.statusCode, url));
  const errors = log.filter((entry) => entry.level >= 50);
  const warnings = new Map<string, number>();
  for (const entry of log.filter(({ level }) => level === 40)) warnings.set(entry.msg ?? '', (warnings.get(entry.msg ?? '') ?? 0) + 1);
  t.diagnostic(`warnings logged: ${JSON.stringify(Object.fromEntries(warnings))}`);
  const statuses = new Map<string, number>();
  for (const { status, clientClosed } of outcomes) {
    const answer = status === undefined ? (clientClosed ? 'none (client left)' : 'none') : String(status);
    statuses.set(answer, (statuses.get(answer) ?? 0) + 1);
  }
  t.diagnostic(
    `${outcomes.length} requests over ${operations.length} operations; answers: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
  );
  const unanswered = outcomes.filter((o) => o.status === undefined && !o.clientClosed);
  if (unanswered.length)
    t.diagnostic(
      `closed without an answer: ${unanswered
        .slice(0, 3)
        .map((o) => `${o.label} ${o.url.slice(0, 80)} ${o.fetchError ?? ''}`)
        .join('; ')}`,
    );
  const slowest = [...outcomes].sort((a, b) => b.ms! - a.ms!).slice(0, 3);
  t.diagnostic(`slowest: ${slowest.map((o) => `${o.label} ${o.ms} ms → ${o.status ?? 'no answer'}`).join('; ')}`);
  const show = (items: unknown[]) => JSON.stringify(items.slice(0, 15), null, 1).slice(0, 6000);
  if (process.env.FUZZ_REPORT) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      process.env.FUZZ_REPORT,
      JSON.stringify({ fails, serverFails: serverFails.map(({ method, url, res }) => [method, url.slice(0, 200), res.statusCode]), errors }, null, 1),
    );
  }
  assert.ok(outcomes.length >= Math.min(REQUESTS, 500), `only ${outcomes.length} requests within the budget`);
  assert.deepEqual(fails, [], `FUZZ_SEED=${SEED}: 5xx or hung requests:\n${show(fails)}`);
  assert.deepEqual(
    serverFails.map(({ method, url, res }) => `${method} ${url.slice(0, 120)} → ${res.statusCode}`),
    [],
    `FUZZ_SEED=${SEED}: 5xx begun by the server`,
  );
  assert.deepEqual(errors, [], `FUZZ_SEED=${SEED}: error-level log lines (an error is for our own faults only):\n${show(errors)}`);

  // Healthy after: probes, a normal upload, and its download byte for byte.
  assert.equal((await fetch(`${app.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${app.url}/readyz`)).status, 200);
  const owner = app.http(pools.apiKey);
  const content = Buffer.from(`after the fuzz ${SEED}`);
  const linkId = await createLink(owner, content, 'after.txt');
  const token = await downloadToken(owner, linkId, 1);
  const download = await downloadOriginal(app.url, linkId, token);
  assert.equal(download.response.status, 200);
  assert.equal(sha256(download.body), sha256(content));
});

// What the fuzz found, each on its own.

test('a client that hangs up mid-upload is answered 400 (to no one) and logged at info, never as our error', async (t) => {
  const app = await startApp(t, { env: { LOG_LEVEL: 'info' } });
  const log = captureLog(app.runtime.log);
  const served: ServerResponse[] = [];
  app.app.server.on('request', (_req: IncomingMessage, res: ServerResponse) => served.push(res));
  const { apiKey, http } = await app.createAccount('business');
  const linkId = await createLink(http, 'first', 'first.txt');
  const port = Number(new URL(app.url).port);
  const boundary = 'fuzz-abandoned';
  const head = (field: string) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="a.png"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
  for (const [method, path, field] of [
    ['POST', '/api/upload', 'file'],
    ['PUT', `/api/links/${linkId}/file`, 'file'],
    ['POST', '/api/branding', 'logo'],
  ] as const) {
    for (const after of ['destroy', 'end'] as const) {
      const headers: [string, string][] = [
        ['Host', '127.0.0.1'],
        ['Authorization', `Bearer ${apiKey}`],
        ['Content-Type', `multipart/form-data; boundary=${boundary}`],
        ['Content-Length', String(1_000_000)],
      ];
      const request = rawRequest(method, path, headers, Buffer.concat([head(field), Buffer.alloc(64 * 1024, 1)]));
      const outcome = await sendRaw(port, request, { after, holdMs: 200, timeoutMs: REQUEST_TIMEOUT_MS });
      assert.ok(!outcome.timedOut && (outcome.status ?? 400) < 500, `${method} ${path} (${after}): ${outcome.status}`);
    }
  }
  // The server's side of each cut request settles once its stream has failed.
  for (let waited = 0; served.some((res) => !res.writableFinished && !res.destroyed) && waited < 5000; waited += 50) await sleep(50);
  await sleep(100);
  const cut = served.slice(2); // the account's first link and nothing else came before
  assert.deepEqual(
    cut.map((res) => res.statusCode >= 500),
    cut.map(() => false),
    `server-side statuses: ${cut.map((res) => res.statusCode)}`,
  );
  assert.deepEqual(
    log.filter((entry) => entry.level >= 50),
    [],
  );
  assert.ok(
    log.some((entry) => entry.level === 30 && entry.msg?.startsWith('request abandoned')),
    'the hang-up is logged at info',
  );
});

test('a portal path with a slug no portal could have: forms are a 400, pages the not-found page, never a broken cookie path', async (t) => {
  const app = await startApp(t);
  for (const [method, path, status] of [
    ['POST', '/p/%C3%84/sign-out', 400],
    ['GET', '/p/%C3%84', 404],
    ['POST', '/p/a%3Bb/email', 400],
    ['GET', '/p/%C3%84/open/AAAAAAAAAAAAAAAAAAAA', 404],
  ] as const) {
    const response = await fetch(`${app.url}${path}`, { method, redirect: 'manual' });
    assert.equal(response.status, status, `${method} ${path}`);
    assert.equal(response.headers.get('set-cookie'), null, `${method} ${path}`);
  }
  assert.equal((await fetch(`${app.url}/p/no-such-portal`)).status, 404, 'a well-formed slug without a portal is the same not-found page');
});

test('text holding U+0000 is a 400 on every database, never a 500 from PostgreSQL', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const refused = await http.post('/api/api-keys', { name: 'a\u0000b' });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.match(refused.body.error, /NUL character/);
  assert.equal((await http.post('/api/client-portals', { name: 'P', slug: 'nul-portal', allowedEmails: ['x\u0000@example.com'] })).status, 400);
  assert.equal((await http.post('/api/api-keys', { name: 'plain' })).status, 200);
  const { apiKey } = await app.createAccount('business');
  const poisoned = await fetch(`${app.url}/api/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: '{"name": "a", "__proto__": {"x": 1}}',
  });
  assert.equal(poisoned.status, 400, 'prototype poisoning is still refused');
});
