import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Role } from '../../src/core/permissions.js';
import { startApp } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import type { HttpClient } from '../helpers/http.js';
import { operationsOf } from '../helpers/operations.js';
import { createSessionClient, signedInPerson, TEST_PASSWORD } from '../helpers/people.js';
import { startSmtp } from '../helpers/smtp.js';

type Access = 'public' | 'member' | 'admin' | 'owner';

/**
 * Every operation of the OpenAPI document and the least role that may call it, written here,
 * independently of the routes' own options (issue 18: members may not touch API keys,
 * integrations, branding and SMTP, payments onboarding, members, invitations or the audit log).
 * An operation missing from this table fails the walk: nothing new goes unclassified.
 */
const ACCESS: Record<string, Access> = {
  'POST /api/auth/setup': 'public',
  'POST /api/auth/sign-in': 'public',
  'POST /api/auth/sign-out': 'public',
  'POST /api/auth/magic-link': 'public',
  'POST /api/auth/magic-link/confirm': 'public',
  'POST /api/auth/password-reset': 'public',
  'POST /api/auth/password-reset/confirm': 'public',
  'POST /api/auth/sign-up': 'public',
  'POST /api/auth/sign-up/confirm': 'public',
  'POST /api/auth/email-change/confirm': 'public',
  'POST /api/invitations/accept': 'public',
  'GET /api/links/{id}/download-original': 'public',
  'POST /api/stripe/checkout-download/{linkId}': 'public',
  'POST /api/stripe/webhook': 'public',
  'GET /auth/oidc/start': 'public',
  'GET /auth/oidc/callback': 'public',

  'POST /api/auth/switch-account': 'member',
  'GET /api/me': 'member',
  'GET /api/sessions': 'member',
  'DELETE /api/sessions/{id}': 'member',
  'POST /api/me/two-factor': 'member',
  'DELETE /api/me/two-factor': 'member',
  'POST /api/me/two-factor/confirm': 'member',
  'POST /api/me/password': 'member',
  'POST /api/me/email': 'member',
  'DELETE /api/me/membership': 'member',
  'DELETE /api/me': 'member',
  'GET /api/links/storage': 'member',
  'PATCH /api/me': 'member',

  'GET /api/account': 'owner',
  'PATCH /api/account': 'owner',
  'DELETE /api/account': 'owner',

  'GET /api/members': 'admin',
  'PATCH /api/members/{userId}': 'admin',
  'DELETE /api/members/{userId}': 'admin',
  'GET /api/invitations': 'admin',
  'POST /api/invitations': 'admin',
  'DELETE /api/invitations/{id}': 'admin',
  'GET /api/audit-log': 'admin',
  'GET /api/api-keys': 'admin',
  'POST /api/api-keys': 'admin',
  'PUT /api/api-keys/{id}/toggle': 'admin',
  'DELETE /api/api-keys/{id}': 'admin',
  'GET /api/branding': 'admin',
  'POST /api/branding': 'admin',
  'POST /api/branding/domain/verify': 'admin',
  'POST /api/branding/smtp/test': 'admin',
  'DELETE /api/branding/logo': 'admin',
  'GET /api/integrations': 'admin',
  'POST /api/integrations': 'admin',
  'DELETE /api/integrations/{id}': 'admin',
  'POST /api/integrations/{id}/test': 'admin',
  'POST /api/stripe/connect': 'admin',
  'PUT /api/block-list': 'admin',
  'GET /api/webhooks': 'admin',
  'POST /api/webhooks': 'admin',
  'GET /api/webhooks/{id}': 'admin',
  'PATCH /api/webhooks/{id}': 'admin',
  'DELETE /api/webhooks/{id}': 'admin',
  'GET /api/webhooks/{id}/deliveries': 'admin',
  'POST /api/webhooks/{id}/test': 'admin',
  'GET /api/block-list': 'member',
  'PUT /api/view-alerts': 'admin',
  'GET /api/view-alerts': 'member',

  'GET /api/stripe/connect-status': 'member',
  'POST /api/upload': 'member',
  'GET /api/links': 'member',
  'POST /api/links/room': 'member',
  'GET /api/links/rooms': 'member',
  'GET /api/links/{id}/children': 'member',
  'PUT /api/links/{id}/children': 'member',
  'GET /api/links/{id}': 'member',
  'DELETE /api/links/{id}': 'member',
  'PATCH /api/links/{id}': 'member',
  'PUT /api/links/{id}/preview-image': 'member',
  'DELETE /api/links/{id}/preview-image': 'member',
  'PUT /api/links/{id}/file': 'member',
  'POST /api/links/{id}/download-tokens': 'member',
  'GET /api/links/pending-count': 'member',
  'GET /api/links/pending-requests': 'member',
  'GET /api/links/{id}/requests': 'member',
  'POST /api/links/{id}/share': 'member',
  'GET /api/links/{id}/analytics': 'member',
  'GET /api/analytics/global': 'member',
  'GET /api/client-portals': 'member',
  'POST /api/client-portals': 'member',
  'GET /api/client-portals/{id}': 'member',
  'DELETE /api/client-portals/{id}': 'member',
  'POST /api/client-portals/{id}/links': 'member',
  'DELETE /api/client-portals/{id}/links/{linkId}': 'member',
  'GET /api/agreements': 'member',
  'POST /api/agreements': 'member',
  'GET /api/agreements/{id}': 'member',
  'GET /api/links/{id}/pages/{page}/thumbnail': 'member',
  'PATCH /api/agreements/{id}': 'member',
  'DELETE /api/agreements/{id}': 'member',
  'GET /api/links/{id}/agreements': 'member',
  'GET /api/templates': 'member',
  'POST /api/templates': 'member',
  'GET /api/templates/{id}': 'member',
  'DELETE /api/templates/{id}': 'member',
};
for (const setting of ['active', 'password', 'watermark', 'approval', 'otp', 'booking-url']) ACCESS[`PATCH /api/links/{id}/${setting}`] = 'member';
ACCESS['PATCH /api/links/{id}/requests/{requestId}'] = 'member';
ACCESS['PATCH /api/client-portals/{id}'] = 'member';
ACCESS['PATCH /api/templates/{id}'] = 'member';
// DESIGN §4: PUT and POST answer wherever PATCH does, and POST wherever PUT does, with the same role.
for (const [operation, role] of Object.entries(ACCESS)) {
  const [method, path] = operation.split(' ');
  for (const alias of method === 'PATCH' ? ['PUT', 'POST'] : method === 'PUT' ? ['POST'] : []) ACCESS[`${alias} ${path}`] = role;
}

const ENDS_MEMBERSHIP = new Set(['DELETE /api/me/membership']);

test('role walk: every operation as owner, admin and member; members are refused what the table keeps from them', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const people = {
    owner: await signedInPerson(app, accountId, 'owner'),
    admin: await signedInPerson(app, accountId, 'admin'),
    member: await signedInPerson(app, accountId, 'member'),
  };
  const operations = await operationsOf(http);
  const unclassified = operations.map(({ method, template }) => `${method} ${template}`).filter((operation) => !(operation in ACCESS));
  assert.deepEqual(unclassified, [], 'every operation has a place in the role table');

  // Leaving the account ends the caller's session there: walked last, so every other call has its people.
  const walk = [...operations].sort(
    (a, b) => Number(ENDS_MEMBERSHIP.has(`${a.method} ${a.template}`)) - Number(ENDS_MEMBERSHIP.has(`${b.method} ${b.template}`)),
  );
  let checked = 0;
  for (const { method, template, path } of walk) {
    const access = ACCESS[`${method} ${template}`];
    if (access === 'public') continue;
    for (const role of ['owner', 'admin', 'member'] as const) {
      const response = await people[role].client.request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
      const label = `${role} ${method} ${path} answered ${response.status} ${JSON.stringify(response.body)}`;
      // 503 is an honest answer where a dependency is not configured here (Stripe for onboarding).
      assert.ok(response.status < 500 || response.status === 503, label);
      assert.notEqual(response.status, 401, label);
      if (access === 'admin' && role === 'member') {
        assert.equal(response.status, 403, label);
        assert.match(String(response.body.error), /needs the admin role or higher; you are a member/, label);
      } else if (access === 'owner' && role !== 'owner') {
        assert.equal(response.status, 403, label);
        assert.match(String(response.body.error), new RegExp(`needs the owner role; you are an? ${role}`), label);
      } else {
        assert.notEqual(response.status, 403, label);
      }
      checked += 1;
    }
  }
  assert.ok(checked > 200, `${checked} calls`);
});

test('owners: only an owner makes, changes or removes an owner, and the last owner stays', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  const member = await signedInPerson(app, accountId, 'member');

  const promote = await admin.client.patch(`/api/members/${member.userId}`, { role: 'owner' });
  assert.equal(promote.status, 403);
  assert.match(promote.body.error, /needs the owner role/);
  assert.equal((await admin.client.patch(`/api/members/${owner.userId}`, { role: 'member' })).status, 403, 'an admin cannot demote an owner');
  assert.equal((await admin.client.delete(`/api/members/${owner.userId}`)).status, 403, 'nor remove one');
  assert.equal((await admin.client.patch(`/api/members/${member.userId}`, { role: 'admin' })).status, 200, 'admins manage the rest');

  const last = await owner.client.patch(`/api/members/${owner.userId}`, { role: 'admin' });
  assert.equal(last.status, 422);
  assert.match(last.body.error, /at least one owner/);
  assert.equal((await owner.client.delete(`/api/members/${owner.userId}`)).status, 422);
  assert.equal((await owner.client.patch(`/api/members/${admin.userId}`, { role: 'owner' })).status, 200);
  assert.equal(
    (await owner.client.patch(`/api/members/${owner.userId}`, { role: 'admin' })).status,
    200,
    'with a second owner, the first may step down',
  );

  const roles = (await admin.client.get('/api/members')).body.members.map((m: { userId: number; role: string }) => [m.userId, m.role]);
  assert.deepEqual(new Map(roles).get(admin.userId), 'owner');
});

test("API keys act with their maker's current role: an admin's key cannot make owners, and a key stops when its maker leaves", async (t) => {
  const app = await startApp(t);
  const { accountId, http: commandLineKey } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  const made = await admin.client.post('/api/api-keys', { name: 'admin script' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const adminKey = app.http(made.body.api_key.key);
  // A key made with that key is made on the same person's behalf.
  const chained = app.http((await adminKey.post('/api/api-keys', { name: 'made by the key' })).body.api_key.key);

  for (const key of [adminKey, chained]) {
    assert.equal((await key.get('/api/me')).body.role, 'admin');
    assert.equal((await key.patch(`/api/members/${admin.userId}`, { role: 'owner' })).status, 403, 'no promotion through a key');
    assert.equal((await key.delete(`/api/members/${owner.userId}`)).status, 403, 'nor removing an owner');
    assert.equal((await key.get('/api/links')).status, 200);
  }
  assert.equal((await commandLineKey.get('/api/me')).body.role, 'owner', 'a key made at the command line acts as owner');
  const listed = (await owner.client.get('/api/api-keys')).body.api_keys as Array<{ name: string; created_by: unknown }>;
  assert.deepEqual(
    listed.map((key) => [key.name, key.created_by]),
    [
      ['default', null],
      ['admin script', { id: admin.userId, name: 'Test admin' }],
      ['made by the key', { id: admin.userId, name: 'Test admin' }],
    ],
  );

  assert.equal((await owner.client.patch(`/api/members/${admin.userId}`, { role: 'member' })).status, 200);
  assert.equal((await adminKey.get('/api/me')).body.role, 'member', 'a demotion applies to their keys at once');
  assert.equal((await adminKey.get('/api/api-keys')).status, 403);
  assert.equal((await owner.client.delete(`/api/members/${admin.userId}`)).status, 204);
  for (const key of [adminKey, chained]) assert.equal((await key.get('/api/links')).status, 401, "a key stops with its maker's membership");
  assert.equal((await commandLineKey.get('/api/links')).status, 200);
});

test("tenancy: a member of one account gets 404 on another account's link, room, portal, template and requests", async (t) => {
  const app = await startApp(t);
  const mine = await app.createAccount('business');
  const theirs = await app.createAccount('business');
  const member = await signedInPerson(app, mine.accountId, 'member');

  const linkId = await createLink(theirs.http);
  const room = await theirs.http.post('/api/links/room', { name: 'Their room', children_ids: [linkId] });
  assert.equal(room.status, 200, JSON.stringify(room.body));
  const portal = await theirs.http.post('/api/client-portals', { name: 'Their portal', slug: `their-portal-${theirs.accountId}` });
  assert.equal(portal.status, 200, JSON.stringify(portal.body));
  const template = await theirs.http.post('/api/templates', { name: 'Their template' });
  assert.equal(template.status, 200, JSON.stringify(template.body));

  const [roomId, portalId, templateId] = [room.body.id, portal.body.id, template.body.id];
  for (const path of [
    `/api/links/${linkId}`,
    `/api/links/${roomId}`,
    `/api/links/${linkId}/requests`,
    `/api/links/${linkId}/analytics`,
    `/api/client-portals/${portalId}`,
    `/api/templates/${templateId}`,
  ]) {
    const answer = await member.client.get(path);
    assert.equal(answer.status, 404, `${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  assert.equal((await member.client.request('DELETE', `/api/links/${linkId}`)).status, 404);
  assert.equal((await theirs.http.get(`/api/links/${linkId}`)).status, 200, 'still there for its owner');
});

test('an invitation stands only while its inviter could make it: their removal or demotion withdraws it, audited', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  const secondOwner = await signedInPerson(app, accountId, 'owner');
  const adminKey = app.http((await admin.client.post('/api/api-keys', { name: 'admin script' })).body.api_key.key);
  const invite = async (client: HttpClient, email: string, role: Role) => {
    const made = await client.post('/api/invitations', { email, role });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return { id: made.body.id as number, token: /\/invite\/([0-9A-Za-z]{43})/.exec((await smtp.waitFor(email)).text)![1]! };
  };
  const accept = (token: string) => createSessionClient(app.url).post('/api/invitations/accept', { token, name: 'Invited', password: TEST_PASSWORD });

  const byAdmin = await invite(admin.client, 'evil@example.com', 'admin');
  const byAdminsKey = await invite(adminKey, 'keyed@example.com', 'member');
  const ownerAsOwner = await invite(secondOwner.client, 'boss@example.com', 'owner');
  const ownerAsAdmin = await invite(secondOwner.client, 'helper@example.com', 'admin');
  const byOwner = await invite(owner.client, 'stays@example.com', 'member');

  assert.equal((await owner.client.delete(`/api/members/${admin.userId}`)).status, 204);
  assert.equal((await owner.client.patch(`/api/members/${secondOwner.userId}`, { role: 'admin' })).status, 200);

  const pending = (await owner.client.get('/api/invitations')).body.invitations.map((invitation: { id: number }) => invitation.id);
  assert.deepEqual(pending, [ownerAsAdmin.id, byOwner.id], 'what the new role could still make stays');
  for (const withdrawn of [byAdmin, byAdminsKey, ownerAsOwner]) assert.equal((await accept(withdrawn.token)).status, 404);
  const joined = await accept(ownerAsAdmin.token);
  assert.equal(joined.status, 200, JSON.stringify(joined.body));
  assert.equal(joined.body.role, 'admin');

  const log = (await owner.client.get('/api/audit-log?action=invitation.withdrawn')).body.entries;
  assert.deepEqual(
    log.map((entry: { actor: { id: number }; target: { id: string }; details: unknown }) => [entry.actor.id, Number(entry.target.id), entry.details]),
    [
      [owner.userId, ownerAsOwner.id, { email: 'boss@example.com', role: 'owner', reason: 'inviter_role_changed' }],
      [owner.userId, byAdminsKey.id, { email: 'keyed@example.com', role: 'member', reason: 'inviter_removed' }],
      [owner.userId, byAdmin.id, { email: 'evil@example.com', role: 'admin', reason: 'inviter_removed' }],
    ],
  );
});

test('one address holds one invitation: inviting it again replaces the pending one, and joining or a removal withdraws what is left', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  // Mails leave through the job queue, so two to one address may arrive in either order: each is found by the role it offers.
  const tokenTo = async (email: string, role: string) =>
    /\/invite\/([0-9A-Za-z]{43})/.exec((await smtp.waitFor(email, (mail) => mail.text.includes(`as ${role}.`))).text)![1]!;
  const accept = (token: string) => createSessionClient(app.url).post('/api/invitations/accept', { token, name: 'Ann', password: TEST_PASSWORD });
  const pending = async () =>
    (await owner.client.get('/api/invitations')).body.invitations.map((invitation: { email: string; role: string }) => [
      invitation.email,
      invitation.role,
    ]);

  // A resend, typed differently: the same address after normalising.
  assert.equal((await owner.client.post('/api/invitations', { email: 'ann@corp.example', role: 'member' })).status, 201);
  assert.equal((await owner.client.post('/api/invitations', { email: 'Ann@Corp.Example', role: 'admin' })).status, 201);
  assert.deepEqual(await pending(), [['ann@corp.example', 'admin']], 'the second replaced the first');
  const replaced = await tokenTo('ann@corp.example', 'a member');
  const current = await tokenTo('ann@corp.example', 'an admin');
  assert.equal((await accept(replaced)).status, 404, 'the replaced invitation is withdrawn');

  // An admin may not replace an owner's invitation to join as owner.
  assert.equal((await owner.client.post('/api/invitations', { email: 'boss@corp.example', role: 'owner' })).status, 201);
  assert.equal((await admin.client.post('/api/invitations', { email: 'boss@corp.example', role: 'member' })).status, 403);
  assert.deepEqual(await pending(), [
    ['ann@corp.example', 'admin'],
    ['boss@corp.example', 'owner'],
  ]);

  assert.equal((await accept(current)).status, 200);
  assert.deepEqual(await pending(), [['boss@corp.example', 'owner']]);

  // Someone invited who joins another way (the command line adds people directly), then is removed.
  assert.equal((await owner.client.post('/api/invitations', { email: 'late@corp.example', role: 'admin' })).status, 201);
  const lateToken = await tokenTo('late@corp.example', 'an admin');
  const lateId = await app.runtime.services.users.create({ email: 'late@corp.example', name: 'Late', password: TEST_PASSWORD });
  await app.runtime.services.members.join(lateId, accountId, 'member');
  assert.equal((await owner.client.delete(`/api/members/${lateId}`)).status, 204);
  assert.deepEqual(await pending(), [['boss@corp.example', 'owner']], 'the removal withdrew the invitation to them');
  assert.equal((await accept(lateToken)).status, 404, 'a removed person does not come back by an invitation sent before');
  const log = (await owner.client.get('/api/audit-log?action=invitation.withdrawn')).body.entries;
  assert.deepEqual(
    log.map((entry: { details: { email: string; reason: string } }) => [entry.details.email, entry.details.reason]),
    [
      ['late@corp.example', 'member_removed'],
      ['ann@corp.example', 'invited_again'],
    ],
  );
});

test('a member invites no one: an admin demoted to member loses every invitation they made', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  assert.equal((await admin.client.post('/api/invitations', { email: 'colleague@example.com', role: 'member' })).status, 201);
  assert.equal((await owner.client.patch(`/api/members/${admin.userId}`, { role: 'member' })).status, 200);
  assert.deepEqual((await owner.client.get('/api/invitations')).body, { invitations: [] });
});

test("admins may do everything but owners: a key that acts as an owner, and an owner's invitation, are an owner's to switch off, revoke or withdraw", async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  const ownersKey = (await owner.client.post('/api/api-keys', { name: 'owner script' })).body.api_key;
  const adminsKey = (await admin.client.post('/api/api-keys', { name: 'admin script' })).body.api_key;
  const keys = (await owner.client.get('/api/api-keys')).body.api_keys as Array<{ id: number; name: string; active: boolean }>;
  const commandLineKeyId = keys.find((key) => key.name === 'default')!.id;

  for (const keyId of [commandLineKeyId, ownersKey.id]) {
    for (const [client, who] of [
      [admin.client, 'signed in'],
      [app.http(adminsKey.key), 'with their key'],
    ] as const) {
      for (const method of ['POST', 'PUT'] as const) {
        const toggled = await client.request(method, `/api/api-keys/${keyId}/toggle`);
        assert.equal(toggled.status, 403, `${who} ${method} toggle ${keyId}`);
        assert.match(toggled.body.error, /^Switching on or off a key that acts as an owner needs the owner role; you are an admin/);
      }
      const revoked = await client.delete(`/api/api-keys/${keyId}`);
      assert.equal(revoked.status, 403, `${who} revoke ${keyId}`);
      assert.match(revoked.body.error, /^Revoking a key that acts as an owner needs the owner role; you are an admin/);
    }
  }
  const after = (await owner.client.get('/api/api-keys')).body.api_keys as Array<{ id: number; active: boolean }>;
  assert.deepEqual(
    after.map((key) => key.active),
    [true, true, true],
    'nothing changed',
  );
  assert.equal((await admin.client.post(`/api/api-keys/${adminsKey.id}/toggle`)).status, 200, "an admin's key is an admin's");
  assert.equal((await admin.client.delete(`/api/api-keys/${adminsKey.id}`)).status, 200);
  assert.equal((await owner.client.post(`/api/api-keys/${commandLineKeyId}/toggle`)).body.active, false, 'an owner switches any key');
  assert.equal((await owner.client.delete(`/api/api-keys/${ownersKey.id}`)).status, 200);

  const asOwner = (await owner.client.post('/api/invitations', { email: 'boss@example.com', role: 'owner' })).body.id;
  const asAdmin = (await owner.client.post('/api/invitations', { email: 'helper@example.com', role: 'admin' })).body.id;
  const withdrawn = await admin.client.delete(`/api/invitations/${asOwner}`);
  assert.equal(withdrawn.status, 403);
  assert.match(withdrawn.body.error, /^Withdrawing an invitation to join as owner needs the owner role; you are an admin/);
  assert.equal((await admin.client.delete(`/api/invitations/${asAdmin}`)).status, 204);
  assert.equal((await owner.client.delete(`/api/invitations/${asOwner}`)).status, 204);
});

test('removing a person revokes the keys they made in the account: none is listed as active, none works if they come back', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const elsewhere = await app.createAccount('business');
  const owner = await signedInPerson(app, accountId, 'owner');
  const admin = await signedInPerson(app, accountId, 'admin');
  await app.runtime.services.members.join(admin.userId, elsewhere.accountId, 'admin');
  const made = (await admin.client.post('/api/api-keys', { name: 'admin script' })).body.api_key;
  const chained = (await app.http(made.key).post('/api/api-keys', { name: 'made by the key' })).body.api_key;
  assert.equal((await admin.client.post('/api/auth/switch-account', { accountId: elsewhere.accountId })).status, 200);
  const theirKeyElsewhere = (await admin.client.post('/api/api-keys', { name: 'other account' })).body.api_key;

  assert.equal((await owner.client.delete(`/api/members/${admin.userId}`)).status, 204);
  const listed = (await owner.client.get('/api/api-keys')).body.api_keys as Array<{ name: string; active: boolean }>;
  assert.deepEqual(
    listed.map((key) => [key.name, key.active]),
    [['default', true]],
  );
  await app.runtime.services.members.join(admin.userId, accountId, 'admin');
  for (const key of [made, chained]) assert.equal((await app.http(key.key).get('/api/links')).status, 401, 'revoked, not merely idle');
  assert.equal((await app.http(theirKeyElsewhere.key).get('/api/links')).status, 200, "their keys in another account are that account's");

  const revoked = (await owner.client.get('/api/audit-log?action=api_key.revoked')).body.entries;
  assert.deepEqual(
    revoked
      .map((entry: { actor: { id: number }; target: { id: string }; details: unknown }) => [entry.actor.id, Number(entry.target.id), entry.details])
      .sort((a: number[], b: number[]) => a[1]! - b[1]!),
    [
      [owner.userId, made.id, { name: 'admin script', reason: 'maker_removed' }],
      [owner.userId, chained.id, { name: 'made by the key', reason: 'maker_removed' }],
    ],
  );
});

test('a key is not made for a person whose removal committed while their request was under way', async (t) => {
  const app = await startApp(t);
  const { accountId, http } = await app.createAccount('business');
  const admin = await signedInPerson(app, accountId, 'admin');
  const keysBefore = (await http.get('/api/api-keys')).body.api_keys.length;
  // The request passed the guard as a member; the removal (and its revocation of their keys) then
  // committed before the key's transaction took the account's lock.
  await app.runtime.database.db.deleteFrom('memberships').where('user_id', '=', admin.userId).where('account_id', '=', accountId).execute();
  const source = { accountId, actor: { type: 'user' as const, id: admin.userId, label: admin.email }, ip: '127.0.0.1' };
  await assert.rejects(app.runtime.services.apiKeys.create(source, 'made too late'), /Your access to this account has ended/);
  assert.equal((await http.get('/api/api-keys')).body.api_keys.length, keysBefore, 'no key was stored');
});

test('a change to members acts with the role its person holds when it commits: an owner demoted while the request was under way removes no owner', async (t) => {
  const app = await startApp(t);
  const { accountId } = await app.createAccount('business');
  const [first, demoted, other] = [
    await signedInPerson(app, accountId, 'owner'),
    await signedInPerson(app, accountId, 'owner'),
    await signedInPerson(app, accountId, 'owner'),
  ];
  // The request passed the guard as an owner; the demotion then committed before its transaction took the account's lock.
  const asAuthenticated = {
    accountId,
    plan: 'business',
    role: 'owner' as const,
    via: 'session' as const,
    actor: { type: 'user' as const, id: demoted.userId, label: demoted.email },
    twoFactor: false,
    ip: '127.0.0.1',
  };
  assert.equal((await first.client.patch(`/api/members/${demoted.userId}`, { role: 'member' })).status, 200);
  const { members } = app.runtime.services;
  await assert.rejects(members.remove(asAuthenticated, other.userId), /needs the admin role/);
  await assert.rejects(members.changeRole(asAuthenticated, other.userId, 'member'), /needs the admin role/);
  assert.equal(await members.roleIn(other.userId, accountId), 'owner');

  assert.equal((await first.client.delete(`/api/members/${demoted.userId}`)).status, 204);
  await assert.rejects(members.remove(asAuthenticated, other.userId), /no longer a member/);
});

test('an invitation is checked again when used: one its inviter could no longer make is refused, even if it escaped the withdrawal', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { accountId } = await app.createAccount('business');
  const admin = await signedInPerson(app, accountId, 'admin');
  const made = await admin.client.post('/api/invitations', { email: 'late@example.com', role: 'admin' });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const token = /\/invite\/([0-9A-Za-z]{43})/.exec((await smtp.waitFor('late@example.com')).text)![1]!;

  // What a demotion that committed while the invitation was being made leaves behind: the
  // inviter is a member now, and their invitation was not among those the demotion withdrew.
  await app.runtime.database.db
    .updateTable('memberships')
    .set({ role: 'member' })
    .where('user_id', '=', admin.userId)
    .where('account_id', '=', accountId)
    .execute();

  const visitor = createSessionClient(app.url);
  const accepted = await visitor.post('/api/invitations/accept', { token, name: 'Late', password: TEST_PASSWORD });
  assert.equal(accepted.status, 404);
  assert.match(accepted.body.error, /used, withdrawn or has expired/);
  const page = await fetch(`${app.url}/invite/${token}`);
  assert.doesNotMatch(await page.text(), /late@example\.com/, 'the invitation page does not offer it either');
});
