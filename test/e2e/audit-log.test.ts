import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { createAuditRetention } from '../../src/modules/audit/audit-retention.js';
import { startApp } from '../helpers/app.js';
import { claimVerifiedDomain, startDnsServer } from '../helpers/dns-server.js';
import { createLink, uploadForm } from '../helpers/files.js';
import type { HttpClient } from '../helpers/http.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';
import { startSmtp } from '../helpers/smtp.js';
import { startAppWithStripe } from '../helpers/stripe-stand-in.js';
import { VisitorClient } from '../helpers/visitor.js';

interface AuditEntry {
  id: number;
  at: string;
  actor: { type: 'user' | 'api_key' | 'system'; id: number | null; label: string };
  action: string;
  target: { type: string; id: string } | null;
  ip: string | null;
  details: Record<string, unknown>;
}

const DAY_MS = 86_400_000;
const LINK_PASSWORD = 'visitor-pass-Qx7';
const NEW_LINK_PASSWORD = 'visitor-pass-Zr4';
const SMTP_PASSWORD = 'smtp-pass-Hk2';
const WEBHOOK_URL = 'https://hooks.slack.com/services/T0AUDIT/B0AUDIT/webhookSecretPart42';

async function auditLog(http: HttpClient, query = ''): Promise<AuditEntry[]> {
  const response = await http.get(`/api/audit-log?limit=100${query}`);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.entries;
}

/** The entries of `action` on the target `targetId`, newest first. */
const entriesOf = (entries: AuditEntry[], action: string, targetId: string | number) =>
  entries.filter((entry) => entry.action === action && entry.target?.id === String(targetId));

/** The one entry of `action` on `targetId`; fails when there is none or more than one. */
function theEntry(entries: AuditEntry[], action: string, targetId: string | number): AuditEntry {
  const found = entriesOf(entries, action, targetId);
  assert.equal(found.length, 1, `one ${action} on ${targetId}: ${JSON.stringify(found)}`);
  return found[0]!;
}

const logo = () =>
  sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 10, g: 90, b: 200, alpha: 1 } } })
    .png()
    .toBuffer();

function logoForm(image: Buffer): FormData {
  const form = new FormData();
  form.append('logo', new Blob([new Uint8Array(image)]), 'logo.png');
  return form;
}

test('every change made with a key is one entry naming the key, the target, the IP and what changed', async (t) => {
  const dns = await startDnsServer(t);
  const { app } = await startAppWithStripe(t, { env: { DNS_SERVERS: dns.address } });
  const owner = await app.createAccount('business');
  const http = owner.http;
  const keyId = (await http.get('/api/api-keys')).body.api_keys[0].id as number;

  const linkId = await createLink(http, 'first', 'first.txt', { addPassword: '1', password: LINK_PASSWORD, expiration: '24h' });
  const room = await http.post('/api/links/room', { name: 'Deal room', children_ids: [linkId] });
  assert.equal(room.status, 200);
  for (const [setting, body] of [
    ['active', { isActive: false }],
    ['password', { password: NEW_LINK_PASSWORD }],
    ['watermark', { hasWatermark: true }],
    ['approval', { requiresApproval: true }],
    ['otp', { requiresOtp: true, allowedDomains: ['Example.com'] }],
    ['booking-url', { booking_url: 'https://cal.example.com/me' }],
  ] as const) {
    assert.equal((await http.patch(`/api/links/${linkId}/${setting}`, body)).status, 200, setting);
  }
  const replaced = await http.put(`/api/links/${linkId}/file`, uploadForm('second', 'second.txt'));
  assert.deepEqual(replaced.body, { ok: true, version: 2 });
  const doomed = await createLink(http, 'doomed', 'doomed.txt');
  assert.equal((await http.delete(`/api/links/${doomed}`)).status, 200);

  const key = (await http.post('/api/api-keys', { name: 'ci' })).body.api_key;
  assert.equal((await http.put(`/api/api-keys/${key.id}/toggle`)).body.active, false);
  assert.equal((await http.delete(`/api/api-keys/${key.id}`)).status, 200);

  assert.equal((await http.post('/api/branding', { company_name: 'Acme', primary_color: '#112233' })).status, 200);
  const mail = await http.post('/api/branding', { smtp_host: 'smtp.acme.example', smtp_username: 'mailer', smtp_password: SMTP_PASSWORD });
  assert.equal(mail.status, 200, JSON.stringify(mail.body));
  await claimVerifiedDomain(http, dns, 'docs.acme.example');
  assert.equal((await http.post('/api/branding', logoForm(await logo()))).status, 200);
  assert.equal((await http.delete('/api/branding/logo')).status, 200);

  const integration = await http.post('/api/integrations', { type: 'slack', config: { webhook_url: WEBHOOK_URL, channel: '#deals' } });
  assert.equal(integration.status, 200, JSON.stringify(integration.body));
  assert.equal((await http.delete(`/api/integrations/${integration.body.id}`)).status, 200);

  assert.equal((await http.post('/api/stripe/connect')).status, 200);
  const stripeAccountId = (await http.get('/api/stripe/connect-status')).body.account_id as string;

  const gated = await createLink(http, 'gated', 'gated.txt', { requiresApproval: '1' });
  assert.equal((await new VisitorClient(app.url).post(`/v/${gated}/access`, { email: 'Visitor@Example.com' })).status, 303);
  const requestId = (await http.get(`/api/links/${gated}/requests`)).body.requests[0].id as number;
  assert.equal((await http.patch(`/api/links/${gated}/requests/${requestId}`, { status: 'approved' })).status, 200);
  assert.equal((await http.post(`/api/links/${gated}/share`, { emails: ['client@example.com'] })).status, 200);

  const entries = await auditLog(http);
  const expected: Array<[action: string, target: { type: string; id: string | number }, details: Record<string, unknown>]> = [
    ['link.created', { type: 'link', id: linkId }, { kind: 'file', name: 'first.txt', expiration: '24h', password_set: true }],
    ['link.created', { type: 'link', id: room.body.id }, { kind: 'room', name: 'Deal room', childIds: [linkId] }],
    ['link.file_replaced', { type: 'link', id: linkId }, { version: 2, name: 'second.txt' }],
    ['link.created', { type: 'link', id: doomed }, { kind: 'file', name: 'doomed.txt', password_set: false }],
    ['link.deleted', { type: 'link', id: doomed }, { kind: 'file', name: 'doomed.txt' }],
    ['api_key.created', { type: 'api_key', id: key.id }, { name: 'ci' }],
    ['api_key.toggled', { type: 'api_key', id: key.id }, { name: 'ci', active: false }],
    ['api_key.revoked', { type: 'api_key', id: key.id }, { name: 'ci' }],
    ['smtp.updated', { type: 'account', id: owner.accountId }, { smtp_host: 'smtp.acme.example', smtp_username: 'mailer', smtp_password_set: true }],
    ['custom_domain.claimed', { type: 'account', id: owner.accountId }, { domain: 'docs.acme.example' }],
    ['custom_domain.verified', { type: 'account', id: owner.accountId }, { domain: 'docs.acme.example' }],
    ['integration.created', { type: 'integration', id: integration.body.id }, { type: 'slack', channel: '#deals' }],
    ['integration.deleted', { type: 'integration', id: integration.body.id }, { type: 'slack', channel: '#deals' }],
    ['payments.onboarding_started', { type: 'stripe_account', id: stripeAccountId }, { newStripeAccount: true }],
    ['link.created', { type: 'link', id: gated }, { kind: 'file', name: 'gated.txt', requiresApproval: true }],
    ['access_request.decided', { type: 'access_request', id: requestId }, { decision: 'approved', email: 'visitor@example.com', linkId: gated }],
    ['link.shared', { type: 'link', id: gated }, { recipients: ['client@example.com'] }],
  ];
  for (const [action, target, details] of expected) {
    const entry = theEntry(entries, action, target.id);
    assert.deepEqual(entry.target, { type: target.type, id: String(target.id) }, action);
    for (const [field, value] of Object.entries(details)) assert.deepEqual(entry.details[field], value, `${action}: ${field}`);
  }
  // One entry per settings change, newest first, naming the fields and their new values.
  assert.deepEqual(
    entriesOf(entries, 'link.updated', linkId).map((entry) => entry.details),
    [
      { fields: ['booking_url'], booking_url: 'https://cal.example.com/me' },
      { fields: ['requiresOtp', 'allowedEmails', 'allowedDomains'], requiresOtp: true, allowedEmails: [], allowedDomains: ['example.com'] },
      { fields: ['requiresApproval'], requiresApproval: true },
      { fields: ['hasWatermark'], hasWatermark: true },
      { fields: ['password'], password_set: true },
      { fields: ['isActive'], isActive: false },
    ],
  );
  assert.deepEqual(
    entriesOf(entries, 'branding.updated', owner.accountId).map((entry) => entry.details),
    [
      { fields: ['logo'], logo: null },
      { fields: ['logo'], logo: 'uploaded' },
      { fields: ['company_name', 'primary_color'], company_name: 'Acme', primary_color: '#112233' },
    ],
  );

  // The account's default key was made at the command line; everything else by that key, from this machine.
  const [made] = entriesOf(entries, 'api_key.created', keyId);
  assert.deepEqual(
    { actor: made?.actor, ip: made?.ip, details: made?.details },
    { actor: { type: 'system', id: null, label: 'command line' }, ip: null, details: { name: 'default' } },
  );
  const byKey = entries.filter((entry) => entry !== made);
  assert.equal(byKey.length, expected.length + 6 + 3, 'nothing else, and nothing twice');
  for (const entry of byKey) {
    assert.deepEqual(entry.actor, { type: 'api_key', id: keyId, label: 'API key default' }, entry.action);
    assert.equal(entry.ip, '127.0.0.1', entry.action);
    assert.ok(Date.parse(entry.at) <= Date.now(), entry.at);
  }
  assert.deepEqual(
    entries.map((entry) => entry.id),
    entries.map((entry) => entry.id).sort((a, b) => b - a),
    'newest first',
  );
});

test('a change made in a session names the person who made it', async (t) => {
  const app = await startApp(t);
  const owner = await app.createAccount('business');
  const admin = await signedInPerson(app, owner.accountId, 'admin');
  const linkId = await createLink(owner.http, 'deck', 'deck.pdf.txt');

  const room = await admin.client.post('/api/links/room', { name: 'Board room', children_ids: [linkId] });
  assert.equal(room.status, 200, JSON.stringify(room.body));
  assert.equal((await admin.client.patch(`/api/links/${linkId}/watermark`, { hasWatermark: true })).status, 200);
  const key = (await admin.client.post('/api/api-keys', { name: 'from the dashboard' })).body.api_key;
  assert.equal((await admin.client.post('/api/branding', { text_color: '#222222' })).status, 200);
  assert.equal((await admin.client.delete(`/api/links/${room.body.id}`)).status, 200);

  const entries = await auditLog(admin.client);
  const person = { type: 'user', id: admin.userId, label: admin.email };
  for (const entry of [
    theEntry(entries, 'link.created', room.body.id),
    theEntry(entries, 'link.updated', linkId),
    theEntry(entries, 'api_key.created', key.id),
    theEntry(entries, 'branding.updated', owner.accountId),
    theEntry(entries, 'link.deleted', room.body.id),
  ]) {
    assert.deepEqual(entry.actor, person, entry.action);
    assert.equal(entry.ip, '127.0.0.1', entry.action);
  }
  assert.deepEqual(theEntry(entries, 'link.deleted', room.body.id).details, { kind: 'room', name: 'Board room' });
});

test('an accepted invitation records the role the person holds after it, not the one it offered', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const email = 'twice@example.com';
  assert.equal((await owner.client.post('/api/invitations', { email, role: 'admin' })).status, 201);
  const asAdmin = /\/invite\/([0-9A-Za-z]{43})/.exec((await smtp.waitFor(email)).text)![1]!;
  // Meanwhile they joined another way: the command line adds people directly.
  const userId = await app.runtime.services.users.create({ email, name: 'Twice', password: TEST_PASSWORD });
  await app.runtime.services.members.join(userId, accountId, 'member');

  const again = await createSessionClient(app.url).post('/api/invitations/accept', { token: asAdmin, password: TEST_PASSWORD });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body.role, 'member', 'someone already in the account keeps their role');

  const accepted = (await auditLog(owner.client, '&action=invitation.accepted')).map((entry) => entry.details);
  assert.deepEqual(accepted, [{ role: 'member' }]);
});

test('owners and admins read the audit log, a member is refused naming the role, and no account sees another', async (t) => {
  const app = await startApp(t);
  const alice = await app.createAccount('business');
  const bob = await app.createAccount('business');
  const alicesLink = await createLink(alice.http, 'a', 'a.txt');
  const bobsLink = await createLink(bob.http, 'b', 'b.txt');
  const member = await signedInPerson(app, alice.accountId, 'member');
  const admin = await signedInPerson(app, alice.accountId, 'admin');
  const owner = await signedInPerson(app, alice.accountId, 'owner');

  const refused = await member.client.get('/api/audit-log');
  assert.equal(refused.status, 403);
  assert.match(refused.body.error, /needs the admin role or higher; you are a member/);
  assert.equal((await admin.client.get('/api/audit-log')).status, 200);
  assert.equal((await owner.client.get('/api/audit-log')).status, 200);
  assert.equal((await app.http().get('/api/audit-log')).status, 401);

  const alicesLog = JSON.stringify(await auditLog(alice.http));
  const bobsLog = JSON.stringify(await auditLog(bob.http));
  assert.ok(alicesLog.includes(alicesLink) && !alicesLog.includes(bobsLink), alicesLog);
  assert.ok(bobsLog.includes(bobsLink) && !bobsLog.includes(alicesLink), bobsLog);
  assert.ok(!bobsLog.includes(member.email) && !bobsLog.includes(alice.email), 'no sign-in of Alice’s people either');
});

test('the action filter and pagination: newest first, counted, bounded', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('business');
  const linkId = await createLink(http, 'x', 'x.txt');
  for (const isActive of [false, true, false, true, false]) await http.patch(`/api/links/${linkId}/active`, { isActive });

  const all = await http.get('/api/audit-log');
  assert.deepEqual(all.body.pagination, { page: 1, limit: 50, total: 7, totalPages: 1 }, 'the default page and limit');

  const page2 = await http.get('/api/audit-log?action=link.updated&limit=2&page=2');
  assert.equal(page2.status, 200);
  assert.deepEqual(page2.body.pagination, { page: 2, limit: 2, total: 5, totalPages: 3 });
  const updates = await auditLog(http, '&action=link.updated');
  assert.deepEqual(
    page2.body.entries.map((entry: AuditEntry) => entry.id),
    updates.slice(2, 4).map((entry) => entry.id),
  );
  assert.deepEqual(
    updates.map((entry) => entry.details.isActive),
    [false, true, false, true, false],
    'newest first',
  );
  assert.deepEqual((await http.get('/api/audit-log?page=9')).body, { entries: [], pagination: { page: 9, limit: 50, total: 7, totalPages: 1 } });
  assert.equal((await http.get('/api/audit-log?action=link.nothing')).body.pagination.total, 0);
  for (const query of ['limit=101', 'limit=0', 'page=0', 'page=0x1', 'action=']) {
    assert.equal((await http.get(`/api/audit-log?${query}`)).status, 400, query);
  }
});

test('no secret reaches the audit log: link passwords, the SMTP password, webhook URLs, API keys, session ids', async (t) => {
  const app = await startApp(t);
  const owner = await app.createAccount('business');
  const admin = await signedInPerson(app, owner.accountId, 'admin');
  const linkId = await createLink(owner.http, 'p', 'p.txt', { addPassword: '1', password: LINK_PASSWORD });
  await admin.client.patch(`/api/links/${linkId}/password`, { password: NEW_LINK_PASSWORD });
  await owner.http.post('/api/branding', { smtp_host: 'smtp.acme.example', smtp_password: SMTP_PASSWORD });
  await admin.client.post('/api/integrations', { type: 'slack', config: { webhook_url: WEBHOOK_URL } });
  const created = (await admin.client.post('/api/api-keys', { name: 'secret keeper' })).body.api_key.key as string;
  await signedInPerson(app, owner.accountId, 'member', 'member-password-Wq9');
  assert.equal((await admin.client.post('/api/auth/sign-in', { email: admin.email, password: 'not-the-password-Jv3' })).status, 401);

  const secrets = [
    LINK_PASSWORD,
    NEW_LINK_PASSWORD,
    SMTP_PASSWORD,
    WEBHOOK_URL,
    'webhookSecretPart42',
    'hooks.slack.com',
    created,
    owner.apiKey,
    admin.password,
    'member-password-Wq9',
    'not-the-password-Jv3',
    admin.client.sessionId!,
    admin.client.csrfToken!,
  ];
  for (const reader of [owner.http, admin.client]) {
    const entries = await auditLog(reader);
    assert.ok(entries.length >= 8, `the changes are there (${entries.length})`);
    const text = JSON.stringify(entries);
    for (const secret of secrets) assert.ok(!text.includes(secret), `the audit log holds a secret: ${secret}`);
  }
});

test('retention: entries older than AUDIT_RETENTION_DAYS are deleted, in bounded batches', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const app = await startApp(t, { env: { AUDIT_RETENTION_DAYS: '30' }, clock: () => now });
  const { http } = await app.createAccount('business');
  await createLink(http, 'old', 'old.txt');
  assert.equal((await auditLog(http)).length, 2, 'the key made at the command line, the upload');

  now += 29 * DAY_MS;
  assert.equal(await app.runtime.auditRetention.sweep(), 0, 'still within 30 days');
  assert.equal((await http.post('/api/api-keys', { name: 'later' })).status, 200);
  now += 2 * DAY_MS;
  assert.equal(await app.runtime.auditRetention.sweep(), 2);
  const kept = await auditLog(http);
  assert.deepEqual(
    kept.map((entry) => [entry.action, entry.at]),
    [['api_key.created', new Date(now - 2 * DAY_MS).toISOString()]],
  );

  const linkId = await createLink(http, 'new', 'new.txt');
  for (const isActive of [false, true, false, true, false]) {
    assert.equal((await http.patch(`/api/links/${linkId}/active`, { isActive })).status, 200);
  }
  now += 31 * DAY_MS;
  const batches: number[] = [];
  const { audit } = app.runtime.services;
  const inTwos = createAuditRetention({
    audit: {
      async deleteBefore(before, limit) {
        const deleted = await audit.deleteBefore(before, limit);
        batches.push(deleted);
        return deleted;
      },
    },
    clock: () => now,
    retentionDays: 30,
    log: app.runtime.log,
    batchSize: 2,
  });
  assert.equal(await inTwos.sweep(), 7);
  assert.deepEqual(batches, [2, 2, 2, 1]);
  assert.deepEqual(await auditLog(http), []);
});
