import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startApp } from '../../../test/helpers/app.js';
import { selfSignedCertificate } from '../../../test/helpers/certificates.js';
import { createLink } from '../../../test/helpers/files.js';
import type { HttpClient } from '../../../test/helpers/http.js';
import { requirePeer } from '../../../test/helpers/requirements.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';
import { waitFor } from '../../../test/helpers/wait.js';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** An HTTPS receiver on loopback with a certificate of its own; answers 500 to the first try of each message named in `failFirst`. */
async function startReceiver(t: TestContext) {
  const certificate = await selfSignedCertificate(t, '127.0.0.1', ['IP:127.0.0.1']);
  if (!requirePeer(t, certificate !== undefined, 'openssl is not installed: apt-get install openssl') || !certificate) return undefined;
  const received: Received[] = [];
  const failFirst = new Set<string>();
  const server = https.createServer(certificate, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      const type = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string }).type;
      if (failFirst.delete(type)) response.writeHead(500).end('try later');
      else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'linkvault-receiver-'));
  t.after(() => fsp.rm(dir, { recursive: true, force: true }));
  const caFile = path.join(dir, 'receiver.pem');
  await fsp.writeFile(caFile, certificate.cert);
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile, received, failFirst };
}

async function deliveriesOf(http: HttpClient, webhookId: number) {
  return (await http.get(`/api/webhooks/${webhookId}/deliveries`)).body.deliveries as Array<Record<string, any>>;
}

test('signed webhooks: verified with the reference library, retried after a 500, only the events asked for, test messages, inactive ones skipped', async (t) => {
  const receiver = await startReceiver(t);
  if (!receiver) return;
  const app = await startApp(t, { env: { ALLOW_PRIVATE_WEBHOOKS: '1', WEBHOOK_CA_FILE: receiver.caFile, EVENT_RETRY_BASE_MS: '50' } });
  const { http } = await app.createAccount('professional');

  const created = await http.post('/api/webhooks', {
    url: `${receiver.url}/hooks?token=receiver-secret`,
    events: ['link.viewed', 'access_request.created'],
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const { secret, ...shown } = created.body;
  const id: number = shown.id;
  assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.equal(shown.url, receiver.url, 'the origin only: the path may hold the receiver token');
  const listed = (await http.get('/api/webhooks')).body.webhooks;
  assert.deepEqual(listed, [shown], 'the secret is shown once, at creation');
  assert.ok(!JSON.stringify(listed).includes('whsec_') && !JSON.stringify(listed).includes('receiver-secret'));

  receiver.failFirst.add('link.viewed');
  const linkId = await createLink(http, 'hello', 'hello.txt');
  assert.equal((await new VisitorClient(app.url).get(`/v/${linkId}`)).status, 200);
  const [delivery] = await waitFor(
    () => deliveriesOf(http, id),
    (rows) => rows[0]?.status === 'delivered',
  );
  assert.equal(delivery!.attempts, 2, 'the 500 was retried');
  assert.equal(delivery!.responseStatus, 204);
  assert.equal(delivery!.eventType, 'link.viewed');

  const verifier = new Webhook(secret);
  const attempts = receiver.received.filter((message) => message.headers['webhook-id'] === delivery!.messageId);
  assert.equal(attempts.length, 2, 'both attempts carry the same message id');
  for (const attempt of attempts) {
    const payload = verifier.verify(attempt.body, attempt.headers) as { type: string; data: Record<string, any> };
    assert.equal(payload.type, 'link.viewed');
    assert.equal(payload.data.linkId, linkId);
    assert.equal(payload.data.linkName, 'hello.txt');
  }
  assert.throws(() => verifier.verify(attempts[0]!.body.replace('hello', 'HELLO'), attempts[0]!.headers), 'a changed body fails verification');
  assert.throws(() => new Webhook('whsec_' + Buffer.alloc(24, 7).toString('base64')).verify(attempts[0]!.body, attempts[0]!.headers));

  // A download is not among the webhook's events: nothing is sent for it.
  const token = (await http.post(`/api/links/${linkId}/download-tokens`, {})).body.token;
  assert.equal((await fetch(`${app.url}/api/links/${linkId}/download-original?token=${token}`)).status, 200);

  const tested = await http.post(`/api/webhooks/${id}/test`);
  assert.equal(tested.status, 200);
  const afterTest = await waitFor(
    () => deliveriesOf(http, id),
    (rows) => rows[0]?.id === tested.body.deliveryId && rows[0]?.status === 'delivered',
  );
  assert.deepEqual(
    afterTest.map((row) => row.eventType),
    ['webhook.test', 'link.viewed'],
  );
  const testMessage = receiver.received.at(-1)!;
  assert.equal((verifier.verify(testMessage.body, testMessage.headers) as { type: string }).type, 'webhook.test');

  // Switched off: views make no delivery.
  assert.equal((await http.patch(`/api/webhooks/${id}`, { active: false })).body.active, false);
  await new VisitorClient(app.url).get(`/v/${linkId}`);
  assert.equal((await deliveriesOf(http, id)).length, 2);
  assert.equal((await http.delete(`/api/webhooks/${id}`)).status, 200);
  assert.equal((await http.get(`/api/webhooks/${id}/deliveries`)).status, 404);
});

test('webhooks: https only, known events, and never to a private address outside tests', async (t) => {
  const receiver = await startReceiver(t);
  if (!receiver) return;
  const app = await startApp(t, { env: { WEBHOOK_CA_FILE: receiver.caFile } });
  const { http } = await app.createAccount('professional');
  for (const [body, status] of [
    [{ url: 'http://example.com/hook', events: ['link.viewed'] }, 422],
    [{ url: 'https://user:pw@example.com/hook', events: ['link.viewed'] }, 422],
    [{ url: 'https://example.com/hook', events: ['link.exploded'] }, 400],
    [{ url: 'https://example.com/hook', events: [] }, 400],
  ] as const) {
    assert.equal((await http.post('/api/webhooks', body)).status, status, JSON.stringify(body));
  }
  // Accepted when saved (a name is checked when sending), refused when sending: loopback is private.
  const created = await http.post('/api/webhooks', { url: `${receiver.url}/hooks`, events: ['link.viewed'] });
  assert.equal(created.status, 200);
  const tested = await http.post(`/api/webhooks/${created.body.id}/test`);
  const [delivery] = await waitFor(
    () => deliveriesOf(http, created.body.id),
    (rows) => rows[0]?.id === tested.body.deliveryId && rows[0]?.status === 'failed',
  );
  assert.match(delivery!.error, /not a public address/);
  assert.equal(delivery!.attempts, 1, 'refused by policy: not retried');
  assert.equal(receiver.received.length, 0, 'nothing reached the private address');
});

test('events and webhook deliveries are kept EVENT_RETENTION_DAYS, then deleted; the totals stay', async (t) => {
  const receiver = await startReceiver(t);
  if (!receiver) return;
  let now = Date.now();
  const app = await startApp(t, {
    clock: () => now,
    env: { ALLOW_PRIVATE_WEBHOOKS: '1', WEBHOOK_CA_FILE: receiver.caFile, EVENT_RETENTION_DAYS: '30' },
  });
  const { http } = await app.createAccount('professional');
  const id: number = (await http.post('/api/webhooks', { url: `${receiver.url}/hooks`, events: ['link.viewed'] })).body.id;
  const linkId = await createLink(http, 'hello', 'hello.txt');
  assert.equal((await new VisitorClient(app.url).get(`/v/${linkId}`)).status, 200);
  await waitFor(
    () => deliveriesOf(http, id),
    (deliveries) => deliveries[0]?.status === 'delivered',
  );
  const sweep = () => Promise.all(app.runtime.eventRetention.filter(({ rows }) => rows !== 'page reads').map((retention) => retention.sweep()));
  const activity = async () => (await http.get('/api/analytics/global')).body.recentActivity as unknown[];

  now += 29 * 86_400_000;
  assert.deepEqual(await sweep(), [0, 0]);
  assert.equal((await activity()).length, 1);
  now += 2 * 86_400_000;
  assert.deepEqual(await sweep(), [1, 1]);
  assert.deepEqual(await activity(), []);
  assert.deepEqual(await deliveriesOf(http, id), []);
  const [expired] = (await http.get('/api/links?tab=expired')).body.links;
  assert.equal(expired.views, 1, "the link's count stays (it expired meanwhile, as links do after 7 days)");
});
