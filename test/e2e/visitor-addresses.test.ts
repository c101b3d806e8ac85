import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webhookBody } from '../../src/modules/webhooks/webhook-messages.js';
import { startApp } from '../helpers/app.js';
import { startReceiver } from '../helpers/events-receiver.js';
import { createLink } from '../helpers/files.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';

const FAST_EVENTS = { ALLOW_PRIVATE_WEBHOOKS: '1', EVENT_POLL_MS: '20', EVENT_RETRY_BASE_MS: '50' };

test('an address a visitor only typed is told as not verified; one proved with a code is told as it is', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { ...FAST_EVENTS, SMTP_URL: smtp.url } });
  const { http, email: accountEmail } = await app.createAccount('business');
  const slack = await startReceiver(t);
  assert.equal((await http.post('/api/integrations', { type: 'slack', config: { webhook_url: slack.url } })).status, 200);

  // Anyone can type the CEO's address at an e-mail gate.
  const typed = await createLink(http, 'board', 'board.txt', { requireEmail: '1' });
  const claimant = new VisitorClient(app.url);
  await claimant.get(`/v/${typed}`);
  await claimant.post(`/v/${typed}/email`, { email: 'ceo@client.example' });
  assert.equal((await claimant.get(`/v/${typed}`)).status, 200);
  const [claimed] = await slack.waitFor(1);
  assert.equal(claimed!.body.text, 'ceo@client.example (not verified) viewed "board.txt"');
  const alert = await smtp.waitFor(accountEmail, (mail) => mail.subject.includes('board.txt'));
  assert.equal(alert.subject, 'ceo@client.example (not verified) opened “board.txt”');

  // Behind a one-time code, the address is the visitor's.
  const proved = await createLink(http, 'terms', 'terms.txt', { requiresOtp: '1', allowedDomains: 'client.example' });
  const holder = new VisitorClient(app.url);
  await holder.get(`/v/${proved}`);
  assert.equal((await holder.post(`/v/${proved}/otp`, { email: 'cfo@client.example' })).status, 303);
  const code = otpCodeIn(await smtp.waitFor('cfo@client.example'));
  assert.equal((await holder.post(`/v/${proved}/otp/verify`, { code })).status, 303);
  assert.equal((await holder.get(`/v/${proved}`)).status, 200);
  const told = (await slack.waitFor(2)).map((message) => message.body.text);
  assert.ok(told.includes('cfo@client.example viewed "terms.txt"'), told.join('\n'));
  const provedAlert = await smtp.waitFor(accountEmail, (mail) => mail.subject.includes('terms.txt'));
  assert.equal(provedAlert.subject, 'cfo@client.example opened “terms.txt”');

  // An access request is a typed address too: the owner decides knowing it.
  const gated = await createLink(http, 'plans', 'plans.txt', { requiresApproval: '1' });
  const asker = new VisitorClient(app.url);
  await asker.get(`/v/${gated}`);
  assert.equal((await asker.post(`/v/${gated}/access`, { email: 'ceo@client.example' })).status, 303);
  const request = await smtp.waitFor(accountEmail, (mail) => mail.subject.includes('plans.txt'));
  assert.equal(request.subject, 'ceo@client.example (not verified) is asking to view “plans.txt”');
  const listed = (await http.get(`/api/links/${gated}/requests`)).body.requests;
  assert.deepEqual(
    listed.map(({ email, emailVerified }: { email: string; emailVerified: boolean | null }) => ({ email, emailVerified })),
    [{ email: 'ceo@client.example', emailVerified: false }],
  );
  assert.equal((await http.get('/api/links/pending-requests')).body.requests[0].emailVerified, false);
  assert.equal((await http.patch(`/api/links/${gated}/requests/${listed[0].id}`, { status: 'approved' })).status, 200);
  const afterDecision = (await slack.waitFor(4)).map((message) => message.body.text);
  assert.ok(
    afterDecision.some((text) => /^ceo@client\.example \(not verified\) may now view "?plans\.txt"?$/.test(text)),
    afterDecision.join('\n'),
  );

  const activity: Array<{ linkId: string; visitor: string }> = (await http.get('/api/analytics/global')).body.recentActivity;
  assert.equal(activity.find((event) => event.linkId === typed)!.visitor, 'ceo@client.example (not verified)');
  assert.equal(activity.find((event) => event.linkId === proved)!.visitor, 'cfo@client.example');

  // The link's own analytics tell its visitors the same way, in JSON and in the CSV export.
  const visitorsOf = async (id: string) => (await http.get(`/api/links/${id}/analytics`)).body.visitors;
  assert.deepEqual(
    (await visitorsOf(typed)).map(({ visitor, emailVerified }: { visitor: string; emailVerified: boolean | null }) => ({ visitor, emailVerified })),
    [{ visitor: 'ceo@client.example (not verified)', emailVerified: false }],
  );
  assert.deepEqual(
    (await visitorsOf(proved)).map(({ visitor, emailVerified }: { visitor: string; emailVerified: boolean | null }) => ({ visitor, emailVerified })),
    [{ visitor: 'cfo@client.example', emailVerified: true }],
  );
  const csv = ((await http.get(`/api/links/${typed}/analytics?format=csv`)).body as string).trim().split('\r\n');
  assert.match(csv[0]!, /,email_verified$/);
  assert.match(csv[1]!, /^ceo@client\.example \(not verified\),1,.*,false$/);
});

test('a webhook says whether the visitor address was proved, and nothing when there is none', () => {
  const body = (payload: object) =>
    JSON.parse(webhookBody('link.viewed', { type: 'link.viewed', linkId: 'L', payload: { linkName: 'n', ...payload }, createdAt: 0 }));
  assert.deepEqual(body({ email: 'a@b.example', emailVerified: false, ip: '203.0.113.7' }).data.visitor, {
    email: 'a@b.example',
    emailVerified: false,
    ip: '203.0.113.x',
  });
  assert.equal(body({ email: 'a@b.example', emailVerified: true }).data.visitor.emailVerified, true);
  assert.equal(body({ email: 'a@b.example' }).data.visitor.emailVerified, null, 'an event recorded before addresses were told apart');
  assert.equal(body({ ip: '203.0.113.7' }).data.visitor.emailVerified, null);
});
