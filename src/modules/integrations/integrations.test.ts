import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import type { RecordedEvent } from '../events/event-types.js';
import { slackMessage, teamsMessage } from './chat-messages.js';
import { MAX_INTEGRATIONS_PER_ACCOUNT } from './integrations.service.js';

const SLACK_URL = 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX';
const TEAMS_URL = 'https://prod-01.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=secret';

test('create, list without the URL, delete; the URL is stored sealed', async (t) => {
  const app = await startApp(t);
  const { http, accountId } = await app.createAccount('business');

  const slack = await http.post('/api/integrations', { type: 'slack', config: { webhook_url: SLACK_URL, channel: '#deals' } });
  assert.equal(slack.status, 200);
  assert.deepEqual(Object.keys(slack.body).sort(), ['id', 'ok']);
  assert.equal(slack.body.ok, true);
  const teams = await http.post('/api/integrations', { type: 'teams', config: { webhook_url: TEAMS_URL } });
  assert.equal(teams.status, 200, JSON.stringify(teams.body));
  for (const host of ['acme.webhook.office.com', 'x.environment.api.powerplatform.com']) {
    assert.equal((await http.post('/api/integrations', { type: 'teams', config: { webhook_url: `https://${host}/hook` } })).status, 200, host);
  }

  const listed = await http.get('/api/integrations');
  assert.equal(listed.status, 200);
  assert.equal(listed.body.integrations.length, 4);
  const [first] = listed.body.integrations;
  assert.deepEqual(Object.keys(first).sort(), ['channel', 'created_at', 'enabled', 'id', 'type']);
  assert.deepEqual(
    { ...first, created_at: undefined },
    { id: slack.body.id, type: 'slack', enabled: true, channel: '#deals', created_at: undefined },
  );
  assert.ok(!JSON.stringify(listed.body).includes('hooks.slack.com'), 'the webhook URL is never returned');

  const rows = await app.runtime.database.db.selectFrom('integrations').selectAll().where('account_id', '=', accountId).execute();
  assert.ok(rows.every((row) => !row.webhook_url_sealed.includes('slack') && !row.webhook_url_sealed.includes('sig=secret')));

  assert.deepEqual((await http.delete(`/api/integrations/${slack.body.id}`)).body, { ok: true });
  assert.equal((await http.delete(`/api/integrations/${slack.body.id}`)).status, 404);
  assert.equal((await http.get('/api/integrations')).body.integrations.length, 3);
});

test("type must be slack or teams (400); the URL must be https on the provider's own host (422)", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  for (const body of [
    { type: 'discord', config: { webhook_url: SLACK_URL } },
    { type: 'slack' },
    { type: 'slack', config: { channel: '#x' } },
    { type: 'slack', config: { webhook_url: 42 } },
    { type: 'slack', config: { webhook_url: '' } },
  ]) {
    assert.equal((await http.post('/api/integrations', body)).status, 400, JSON.stringify(body));
  }
  const refused: Array<['slack' | 'teams', string]> = [
    ['slack', 'http://hooks.slack.com/services/T/B/X'],
    ['slack', 'https://hooks.slack.com.evil.com/services/T/B/X'],
    ['slack', 'https://evilhooks.slack.com/services/T/B/X'],
    ['slack', 'https://hooks.slack.com:8443/services/T/B/X'],
    ['slack', 'https://user:pw@hooks.slack.com/services/T/B/X'],
    ['slack', 'https://127.0.0.1/hook'],
    ['slack', 'https://10.0.0.1/hook'],
    ['slack', 'https://169.254.169.254/latest/meta-data/'],
    ['slack', 'https://localhost/hook'],
    ['slack', TEAMS_URL],
    ['teams', SLACK_URL],
    ['teams', 'https://webhook.office.com.attacker.net/x'],
    ['teams', 'https://evil-logic.azure.com/x'],
    ['slack', 'not a url'],
  ];
  for (const [type, url] of refused) {
    const response = await http.post('/api/integrations', { type, config: { webhook_url: url, channel: '' } });
    assert.equal(response.status, 422, `${type} ${url}`);
    assert.match(response.body.error, /webhook_url/);
  }
  assert.equal((await http.get('/api/integrations')).body.integrations.length, 0);
});

test('business plan only; at most 20 per account', async (t) => {
  const app = await startApp(t);
  const professional = await app.createAccount('professional');
  assert.equal((await professional.http.get('/api/integrations')).status, 403);
  assert.equal((await professional.http.post('/api/integrations', { type: 'slack', config: { webhook_url: SLACK_URL } })).status, 403);

  const { http } = await app.createAccount('business');
  for (let i = 0; i < MAX_INTEGRATIONS_PER_ACCOUNT; i++) {
    assert.equal((await http.post('/api/integrations', { type: 'slack', config: { webhook_url: SLACK_URL } })).status, 200);
  }
  const over = await http.post('/api/integrations', { type: 'slack', config: { webhook_url: SLACK_URL } });
  assert.equal(over.status, 422);
  assert.match(over.body.error, /20/);
});

test("another account's integrations answer 404 and stay out of its list", async (t) => {
  const app = await startApp(t);
  const alice = await app.createAccount('business');
  const bob = await app.createAccount('business');
  const { id } = (await alice.http.post('/api/integrations', { type: 'slack', config: { webhook_url: SLACK_URL } })).body;
  assert.equal((await bob.http.delete(`/api/integrations/${id}`)).status, 404);
  assert.deepEqual((await bob.http.get('/api/integrations')).body, { integrations: [] });
  assert.equal((await alice.http.get('/api/integrations')).body.integrations.length, 1);
  assert.equal((await bob.http.delete('/api/integrations/abc')).status, 400);
});

const viewed: RecordedEvent = {
  id: 1,
  accountId: 1,
  type: 'link.viewed',
  linkId: 'AbCdEfGhIjKlMnOpQrStUv',
  payload: { linkName: 'Q3 <board> & "deck" | final.pdf', ip: '203.0.113.7' },
  createdAt: Date.UTC(2025, 0, 2, 3, 4, 5),
};

test('Slack gets blocks naming the link (linked to the viewer), the visitor and the event, escaped', () => {
  const message = slackMessage(viewed, 'https://share.example.com/v/AbCdEfGhIjKlMnOpQrStUv', '#deals');
  assert.equal(message.channel, '#deals');
  assert.equal(message.text, '203.0.113.x viewed "Q3 &lt;board&gt; &amp; "deck" | final.pdf"');
  assert.deepEqual(message.blocks[0], {
    type: 'section',
    text: {
      type: 'mrkdwn',
      text: '203.0.113.x viewed *<https://share.example.com/v/AbCdEfGhIjKlMnOpQrStUv|Q3 &lt;board&gt; &amp; "deck" ¦ final.pdf>*',
    },
  });
  assert.deepEqual(message.blocks[1], {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: 'Link viewed · `link.viewed` · 2025-01-02 03:04 UTC' }],
  });
  assert.equal('channel' in slackMessage(viewed, null, ''), false);
});

test('Teams gets an Adaptive Card with the facts and a button to the viewer', () => {
  const purchase: RecordedEvent = {
    ...viewed,
    type: 'purchase.completed',
    payload: { linkName: 'deck.pdf', email: 'ann@example.com', amount: 1250, currency: 'eur' },
  };
  const message = teamsMessage(purchase, 'https://share.example.com/v/AbCdEfGhIjKlMnOpQrStUv');
  assert.equal(message.type, 'message');
  const [attachment] = message.attachments;
  assert.equal(attachment!.contentType, 'application/vnd.microsoft.card.adaptive');
  const card = attachment!.content;
  assert.equal(card.type, 'AdaptiveCard');
  assert.equal(card.body[0]!.text, 'Purchase completed');
  assert.equal(card.body[1]!.text, 'ann@example.com bought "deck.pdf" for €12.50');
  assert.deepEqual(card.body[2]!.facts, [
    { title: 'Link', value: 'deck.pdf' },
    { title: 'Visitor', value: 'ann@example.com' },
    { title: 'Event', value: 'purchase.completed' },
    { title: 'Amount', value: '€12.50' },
    { title: 'When', value: '2025-01-02 03:04 UTC' },
  ]);
  assert.deepEqual(card.actions, [{ type: 'Action.OpenUrl', title: 'Open the link', url: 'https://share.example.com/v/AbCdEfGhIjKlMnOpQrStUv' }]);
});

test('a reached limit of a link says which one and what the owner can do', () => {
  const limit = (which: 'password' | 'code' | 'access-request'): RecordedEvent => ({
    ...viewed,
    type: 'link.limit_reached',
    payload: { linkName: 'deck.pdf', limit: which },
  });
  assert.equal(
    slackMessage(limit('password'), null, '').text,
    `Wrong passwords tried on "deck.pdf" reached this hour's limit: visitors wait until the hour ends, or until you set a new password`,
  );
  assert.match(slackMessage(limit('code'), null, '').text, /^"deck.pdf" has sent this hour's limit of e-mail codes/);
  const card = teamsMessage(limit('access-request'), null).attachments[0]!.content;
  assert.equal(card.body[0]!.text, 'Access requests used up');
  assert.match(card.body[1]!.text ?? '', /^"deck.pdf" has had this hour's limit of access requests/);
  assert.deepEqual(card.body[2]!.facts![1], { title: 'Visitor', value: 'Many visitors' });
});
