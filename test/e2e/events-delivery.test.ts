import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seal } from '../../src/infra/crypto/sealed.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLink, downloadOriginal, downloadToken } from '../helpers/files.js';
import { VisitorClient } from '../helpers/visitor.js';
import { sleep, startReceiver } from '../helpers/events-receiver.js';

const MINUTE = 60_000;
/** Local receivers need ALLOW_PRIVATE_WEBHOOKS; a fast poll and backoff keep the tests short. */
const FAST_EVENTS = { ALLOW_PRIVATE_WEBHOOKS: '1', EVENT_POLL_MS: '20', EVENT_RETRY_BASE_MS: '50' };

const eventsOf = (app: TestApp, accountId: number) =>
  app.runtime.database.db.selectFrom('events').selectAll().where('account_id', '=', accountId).orderBy('id').execute();

test('a view reaches Slack as blocks and Teams as an Adaptive Card, naming link, visitor and event', async (t) => {
  const app = await startApp(t, { env: FAST_EVENTS });
  const { http } = await app.createAccount('business');
  const slack = await startReceiver(t);
  const teams = await startReceiver(t);
  assert.equal(
    (await http.post('/api/integrations', { type: 'slack', config: { webhook_url: `${slack.url}/services/T/B/X`, channel: '#deals' } })).status,
    200,
  );
  assert.equal((await http.post('/api/integrations', { type: 'teams', config: { webhook_url: `${teams.url}/workflows/1` } })).status, 200);
  const id = await createLink(http, 'numbers', 'q3-board.txt');
  const viewerUrl = `${app.runtime.config.publicUrl}/v/${id}`;

  assert.equal((await new VisitorClient(app.url).get(`/v/${id}`)).status, 200);
  const [toSlack] = await slack.waitFor(1);
  const [toTeams] = await teams.waitFor(1);

  assert.equal(toSlack!.path, '/services/T/B/X');
  assert.equal(toSlack!.body.channel, '#deals');
  assert.equal(toSlack!.body.text, '127.0.0.x viewed "q3-board.txt"');
  assert.equal(toSlack!.body.blocks[0].text.text, `127.0.0.x viewed *<${viewerUrl}|q3-board.txt>*`);
  assert.match(toSlack!.body.blocks[1].elements[0].text, /^Link viewed · `link\.viewed` · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);

  assert.equal(toTeams!.path, '/workflows/1');
  const card = toTeams!.body.attachments[0];
  assert.equal(card.contentType, 'application/vnd.microsoft.card.adaptive');
  assert.equal(card.content.type, 'AdaptiveCard');
  assert.deepEqual(card.content.body[2].facts.slice(0, 3), [
    { title: 'Link', value: 'q3-board.txt' },
    { title: 'Visitor', value: '127.0.0.x' },
    { title: 'Event', value: 'link.viewed' },
  ]);
  assert.equal(card.content.actions[0].url, viewerUrl);

  await sleep(200);
  assert.equal(slack.received.length + teams.received.length, 2, 'delivered once each');
});

test('a data room name typed with a line break and Markdown reaches Teams as text on one line, not as a link', async (t) => {
  const app = await startApp(t, { env: FAST_EVENTS });
  const { http } = await app.createAccount('business');
  const teams = await startReceiver(t);
  assert.equal((await http.post('/api/integrations', { type: 'teams', config: { webhook_url: `${teams.url}/workflows/1` } })).status, 200);
  const child = await createLink(http, 'numbers', 'q3_board.txt');
  const room = await http.post('/api/links/room', { name: ' Deal room\n[Sign in again](https://evil.example/login) ', children_ids: [child] });
  assert.equal(room.status, 200, JSON.stringify(room.body));
  assert.equal((await http.get(`/api/links/${room.body.id}`)).body.name, 'Deal room [Sign in again](https://evil.example/login)', 'kept on one line');

  assert.equal((await new VisitorClient(app.url).get(`/v/${room.body.id}`)).status, 200);
  const [toTeams] = await teams.waitFor(1);
  const card = toTeams!.body.attachments[0].content;
  assert.equal(card.body[2].facts[0].value, 'Deal room \\[Sign in again\\]\\(https://evil.example/login\\)');
  assert.match(card.body[1].text, /"Deal room \\\[Sign in again\\\]\\\(https:\/\/evil\.example\/login\\\)"/);
});

test('each change records its event in the same transaction: view, request, approval, denial, download, expiry', async (t) => {
  let now = Date.now();
  // The channel's messages are compared in order: one delivery at a time keeps them so.
  const app = await startApp(t, { env: { ...FAST_EVENTS, EVENT_CONCURRENCY: '1' }, clock: () => now });
  const { http, accountId } = await app.createAccount('business');
  const receiver = await startReceiver(t);
  await http.post('/api/integrations', { type: 'slack', config: { webhook_url: receiver.url } });

  const gated = await createLink(http, 'secret plans', 'plans.txt', { requiresApproval: '1', expiration: '1h' });
  const ann = new VisitorClient(app.url);
  const bob = new VisitorClient(app.url);
  assert.equal((await ann.post(`/v/${gated}/access`, { email: 'Ann@Example.com' })).status, 303);
  assert.equal((await bob.post(`/v/${gated}/access`, { email: 'bob@example.com' })).status, 303);
  const requests = (await http.get(`/api/links/${gated}/requests`)).body.requests as Array<{ id: number; email: string }>;
  const requestOf = (email: string) => requests.find((request) => request.email === email)!.id;
  assert.equal((await http.patch(`/api/links/${gated}/requests/${requestOf('ann@example.com')}`, { status: 'approved' })).status, 200);
  assert.equal((await http.patch(`/api/links/${gated}/requests/${requestOf('bob@example.com')}`, { status: 'denied' })).status, 200);
  assert.equal((await ann.get(`/v/${gated}`)).status, 200, 'approved: the session opens');
  assert.equal((await ann.get(`/v/${gated}`)).status, 200, 'the same session: no second view');

  const token = await downloadToken(http, gated, 2);
  assert.equal((await downloadOriginal(app.url, gated, token)).response.status, 200);
  // A refused download spends nothing and records nothing.
  assert.equal((await downloadOriginal(app.url, gated, 'lvd_not-a-token')).response.status, 403);

  now += 61 * MINUTE;
  await app.runtime.expiryNotices.recordNewlyExpired();
  await app.runtime.expiryNotices.recordNewlyExpired();

  const events = await eventsOf(app, accountId);
  assert.deepEqual(
    events.map((event) => [event.type, JSON.parse(event.payload).email ?? null]),
    [
      ['access.requested', 'ann@example.com'],
      ['access.requested', 'bob@example.com'],
      ['access.approved', 'ann@example.com'],
      ['access.denied', 'bob@example.com'],
      ['link.viewed', 'ann@example.com'],
      ['link.downloaded', null],
      ['link.expired', null],
    ],
  );
  assert.ok(events.every((event) => event.link_id === gated && JSON.parse(event.payload).linkName === 'plans.txt'));

  const received = await receiver.waitFor(7);
  assert.deepEqual(
    received.map((hook) => hook.body.blocks[1].elements[0].text.split(' · ')[1]),
    ['`access.requested`', '`access.requested`', '`access.approved`', '`access.denied`', '`link.viewed`', '`link.downloaded`', '`link.expired`'],
  );
  assert.match(received[0]!.body.text, /^ann@example\.com \(not verified\) asks to view "plans\.txt"$/);
  assert.match(received[5]!.body.text, /^A download-token holder downloaded the original of "plans\.txt"$/);
  assert.match(received[6]!.body.text, /^"plans\.txt" has expired$/);
});

test('a receiver answering 500 twice then 200 gets the event three times, then no more', async (t) => {
  const app = await startApp(t, { env: FAST_EVENTS });
  const { http } = await app.createAccount('business');
  const flaky = await startReceiver(t, (n) => (n <= 2 ? 500 : 200));
  await http.post('/api/integrations', { type: 'teams', config: { webhook_url: flaky.url } });
  const id = await createLink(http);

  await new VisitorClient(app.url).get(`/v/${id}`);
  const received = await flaky.waitFor(3);
  await sleep(600); // several poll intervals and more than the next backoff step
  assert.equal(received.length, 3);
  assert.deepEqual(received[2]!.body, received[0]!.body, 'the same message each time');

  const [delivery] = await app.runtime.database.db.selectFrom('event_deliveries').selectAll().execute();
  assert.deepEqual([delivery!.status, delivery!.attempts, delivery!.last_error], ['delivered', 3, null]);
});

test('a receiver that keeps failing is given up after EVENT_MAX_ATTEMPTS; a 404 at once', async (t) => {
  const app = await startApp(t, { env: { ...FAST_EVENTS, EVENT_MAX_ATTEMPTS: '3' } });
  const { http } = await app.createAccount('business');
  const broken = await startReceiver(t, () => 503);
  const gone = await startReceiver(t, () => 404);
  await http.post('/api/integrations', { type: 'slack', config: { webhook_url: broken.url } });
  await http.post('/api/integrations', { type: 'slack', config: { webhook_url: gone.url } });
  const id = await createLink(http);

  await new VisitorClient(app.url).get(`/v/${id}`);
  await broken.waitFor(3);
  await sleep(800);
  assert.equal(broken.received.length, 3);
  assert.equal(gone.received.length, 1);
  const deliveries = await app.runtime.database.db.selectFrom('event_deliveries').selectAll().orderBy('id').execute();
  assert.deepEqual(
    deliveries.map((delivery) => [delivery.status, delivery.attempts, delivery.last_error]),
    [
      ['failed', 3, 'slack answered 503: ok'],
      ['failed', 1, 'slack answered 404: ok'],
    ],
  );
});

/** The only delivery, once no longer pending (5 s at most). */
async function settledDelivery(app: TestApp) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const [delivery] = await app.runtime.database.db.selectFrom('event_deliveries').selectAll().execute();
    if (delivery && delivery.status !== 'pending') return delivery;
    if (Date.now() > deadline) throw new Error(`the delivery is still ${delivery?.status ?? 'missing'} after 5 s`);
    await sleep(20);
  }
}

test('without ALLOW_PRIVATE_WEBHOOKS a delivery to a private address is refused and failed, never sent', async (t) => {
  const app = await startApp(t, { env: { EVENT_POLL_MS: '20' } });
  const { accountId } = await app.createAccount('business');
  const receiver = await startReceiver(t);
  // Planted directly: the API would refuse this URL with a 422.
  await app.runtime.database.db
    .insertInto('integrations')
    .values({
      account_id: accountId,
      type: 'slack',
      channel: '',
      webhook_url_sealed: seal(app.runtime.masterKey, receiver.url, `integration.webhook_url:${accountId}`),
      created_at: Date.now(),
    })
    .execute();
  await app.runtime.services.events.record(app.runtime.database.db, { accountId, type: 'link.expired', linkId: null, payload: { linkName: 'x' } });
  // Not drain(): the app's own dispatcher, polling every 20 ms, may hold the lease on it right then.
  const delivery = await settledDelivery(app);
  assert.equal(delivery!.status, 'failed');
  assert.match(delivery!.last_error!, /http: URLs are not allowed/);
  assert.equal(receiver.received.length, 0);
});

test('POST /api/integrations/{id}/test posts a test message at once, in each service format, or answers the service’s refusal', async (t) => {
  const app = await startApp(t, { env: FAST_EVENTS });
  const { http } = await app.createAccount('business');
  const other = await app.createAccount('business');
  const slack = await startReceiver(t);
  const refusing = await startReceiver(t, () => 404);
  await http.post('/api/integrations', { type: 'slack', config: { webhook_url: `${slack.url}/services/T/B/X`, channel: '#deals' } });
  await http.post('/api/integrations', { type: 'teams', config: { webhook_url: `${refusing.url}/workflows/1` } });
  const [slackId, teamsId] = ((await http.get('/api/integrations')).body.integrations as Array<{ id: number; type: string }>)
    .sort((a, b) => a.type.localeCompare(b.type))
    .map((integration) => integration.id);

  assert.deepEqual((await http.post(`/api/integrations/${slackId}/test`, {})).body, { ok: true });
  const [hook] = await slack.waitFor(1);
  assert.equal(hook!.path, '/services/T/B/X');
  assert.equal(hook!.body.channel, '#deals');
  assert.match(hook!.body.text, /linkvault is connected/);

  const refused = await http.post(`/api/integrations/${teamsId}/test`, {});
  assert.equal(refused.status, 422);
  assert.match(refused.body.error, /^The test message was not delivered: teams answered 404/);
  assert.ok(!refused.body.error.includes(refusing.url), 'the webhook URL (a secret) is never told');
  assert.equal((await refusing.waitFor(1))[0]!.body.type, 'message', 'an Adaptive Card message');

  assert.equal((await other.http.post(`/api/integrations/${slackId}/test`, {})).status, 404, "another account's integration");
  assert.equal(slack.received.length, 1);
});
