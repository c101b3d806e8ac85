import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import sharp from 'sharp';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import type { HttpClient } from '../helpers/http.js';
import { makePdf } from '../helpers/pdf.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';
import { waitFor } from '../helpers/wait.js';

// A link inside a data room keeps its own gates: the room's session only lets the visitor reach them.

async function createRoom(owner: HttpClient, childIds: string[], name = 'Deal room'): Promise<string> {
  const created = await owner.post('/api/links/room', { name, children_ids: childIds });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body.id;
}

/** A visitor holding a session of the (ungated) room. */
async function inRoom(app: TestApp, roomId: string): Promise<VisitorClient> {
  const visitor = new VisitorClient(app.url);
  const page = await visitor.get(`/v/${roomId}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /class="card room"/);
  return visitor;
}

const viewsOf = async (owner: HttpClient, linkId: string): Promise<number> => (await owner.get(`/api/links/${linkId}`)).body.views;

/** The room page's entry for the link named `name`. */
function roomEntry(roomPage: string, name: string): string {
  const entry = roomPage.split('<li>').find((item) => item.includes(`>${name}</span>`));
  assert.ok(entry, `${name} is listed`);
  return entry;
}

test('a password child is not served inside the room without its password, and is after it', async (t) => {
  const app = await startApp(t);
  const { http: owner } = await app.createAccount('professional');
  const pdf = await makePdf(1);
  const secret = await createLink(owner, pdf, 'Secret.pdf', { addPassword: '1', password: 'open sesame' });
  const open = await createLink(owner, await makePdf(1), 'Open.pdf');
  const room = await createRoom(owner, [secret, open]);
  const child = `/v/${room}/d/${secret}`;

  const visitor = await inRoom(app, room);
  const gate = await visitor.get(child);
  assert.equal(gate.status, 200);
  assert.match(gate.text, /protected by a password/);
  assert.match(gate.text, new RegExp(`action="${child}/password"`));
  assert.doesNotMatch(gate.text, /id="paged-viewer"/);
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 403, 'the room session alone does not serve it');
  assert.equal(await viewsOf(owner, secret), 0);
  const roomPage = (await visitor.get(`/v/${room}`)).text;
  assert.match(roomEntry(roomPage, 'Secret.pdf'), /class="lock"[^>]*>.*<span class="visually-hidden">Protected: asks for a password<\/span>/s);
  assert.doesNotMatch(roomEntry(roomPage, 'Open.pdf'), /class="lock"/, 'an open link carries no lock');

  const wrong = await visitor.post(`${child}/password`, { password: 'nope' });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /password is not right/);
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 403);

  const right = await visitor.post(`${child}/password`, { password: 'open sesame' });
  assert.equal(right.status, 303);
  assert.equal(right.headers.get('location'), child);
  const cookie = right.headers.getSetCookie()[0]!;
  assert.match(cookie, new RegExp(`^lv_room_visit=.*Path=${child}(;|$)`));
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);

  const page = await visitor.get(child);
  assert.equal(page.status, 200);
  assert.match(page.text, new RegExp(`data-manifest-url="${child}/pages.json"`));
  assert.match(page.text, new RegExp(`data-track-url="${child}/track"`));
  assert.match(page.text, new RegExp(`href="/v/${room}"`), 'back to the room');
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 200);
  assert.equal((await visitor.get(`${child}/content`)).status, 404, 'a PDF leaves as page images only');
  assert.equal(await viewsOf(owner, secret), 1, 'the view inside the room counts on the child');

  assert.equal((await visitor.get(`/v/${secret}/pages.json`)).status, 403, 'the child visit belongs to the room path only');
  const stranger = new VisitorClient(app.url);
  const outside = await stranger.get(child);
  assert.equal(outside.status, 303, 'no room session: back to the room page');
  assert.equal(outside.headers.get('location'), `/v/${room}`);
  assert.equal((await stranger.post(`${child}/password`, { password: 'open sesame' })).headers.get('location'), `/v/${room}`);
  assert.equal((await stranger.get(`${child}/pages.json`)).status, 403);
});

test('views inside a room count on the child, up to its cap: then "View limit reached" (410)', async (t) => {
  const app = await startApp(t);
  const { http: owner } = await app.createAccount('professional');
  const capped = await createLink(owner, await makePdf(1), 'Once.pdf', { maxViews: '1' });
  const room = await createRoom(owner, [capped]);
  const child = `/v/${room}/d/${capped}`;

  const first = await inRoom(app, room);
  assert.doesNotMatch(roomEntry((await first.get(`/v/${room}`)).text, 'Once.pdf'), /class="lock"/);
  const opened = await first.get(child);
  assert.equal(opened.status, 200);
  assert.match(opened.text, /id="paged-viewer"/);
  assert.equal((await first.get(`${child}/pages.json`)).status, 200);
  await first.get(child);
  assert.equal(await viewsOf(owner, capped), 1, 'one child session, one view');
  assert.equal(await viewsOf(owner, room), 1);

  const tracked = await first.postJson(`${child}/track`, { page: 1, seconds: 7 });
  assert.equal(tracked.status, 204);
  const analytics = (await owner.get(`/api/links/${capped}/analytics`)).body;
  assert.equal(analytics.views, 1);
  assert.deepEqual(analytics.pages, [{ page: 1, seconds: 7 }], "time inside the room is the child's");

  const second = await inRoom(app, room);
  assert.match(roomEntry((await second.get(`/v/${room}`)).text, 'Once.pdf'), /<span class="visually-hidden">View limit reached<\/span>/);
  const limited = await second.get(child);
  assert.equal(limited.status, 410);
  assert.match(limited.text, /View limit reached/);
  assert.equal((await second.get(`${child}/pages.json`)).status, 403);
  assert.equal(await viewsOf(owner, capped), 1);
});

test('an OTP child asks for its own code, unless the room already verified an address it admits', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http: owner } = await app.createAccount('professional');
  const pdf = await makePdf(1);
  const forDana = await createLink(owner, pdf, 'ForDana.pdf', { requiresOtp: '1', allowedEmails: 'dana@acme.com', hasWatermark: '1' });
  const forAnn = await createLink(owner, await makePdf(1), 'ForAnn.pdf', { requiresOtp: '1', allowedEmails: 'ann@solo.com' });

  // A room anyone may open: the child's code is asked for.
  const openRoom = await createRoom(owner, [forDana], 'Open room');
  const child = `/v/${openRoom}/d/${forDana}`;
  const visitor = await inRoom(app, openRoom);
  const gate = await visitor.get(child);
  assert.match(gate.text, /Send me a code/);
  assert.match(gate.text, new RegExp(`action="${child}/otp"`));
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 403);
  assert.match(roomEntry((await visitor.get(`/v/${openRoom}`)).text, 'ForDana.pdf'), /Protected: asks for an e-mailed code/);
  assert.equal((await visitor.post(`${child}/otp`, { email: 'eve@evil.com' })).status, 422);
  assert.equal((await visitor.post(`${child}/otp`, { email: 'dana@acme.com' })).status, 303);
  const codeStep = await visitor.get(child);
  assert.match(codeStep.text, new RegExp(`action="${child}/otp/verify"`));
  const verified = await visitor.post(`${child}/otp/verify`, { code: otpCodeIn(await smtp.waitFor('dana@acme.com')) });
  assert.equal(verified.status, 303);
  assert.match((await visitor.get(child)).text, /id="paged-viewer"/);
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 200);

  // A room behind its own OTP gate: the address it verified passes the child's gate when admitted there.
  const otpRoom = (await owner.post('/api/links/room', { name: 'Acme room', children_ids: [forDana, forAnn] })).body.id;
  assert.equal((await owner.patch(`/api/links/${otpRoom}/otp`, { requiresOtp: true, allowedDomains: ['acme.com'] })).status, 200);
  const dana = new VisitorClient(app.url);
  assert.equal((await dana.get(`/v/${otpRoom}/d/${forDana}`)).headers.get('location'), `/v/${otpRoom}`, 'the room first');
  await dana.post(`/v/${otpRoom}/otp`, { email: 'dana@acme.com' });
  const roomCode = otpCodeIn(await smtp.waitFor('dana@acme.com', (mail) => mail !== smtp.received.find((m) => m.to.includes('dana@acme.com'))));
  assert.equal((await dana.post(`/v/${otpRoom}/otp/verify`, { code: roomCode })).status, 303);
  const roomPage = (await dana.get(`/v/${otpRoom}`)).text;
  assert.doesNotMatch(roomEntry(roomPage, 'ForDana.pdf'), /class="lock"/, 'the verified address passes');
  assert.match(roomEntry(roomPage, 'ForAnn.pdf'), /Protected: asks for an e-mailed code/);

  const trusted = await dana.get(`/v/${otpRoom}/d/${forDana}`);
  assert.equal(trusted.status, 200);
  assert.match(trusted.text, /id="paged-viewer"/, 'straight to the document');
  const stamped = await waitFor(
    async () => JSON.parse((await dana.get(`/v/${otpRoom}/d/${forDana}/pages.json`)).text) as { pages: { text: string | null }[] },
    (manifest) => manifest.pages.length === 1,
    60_000,
  );
  assert.ok(
    stamped.pages.every((page) => page.text === null),
    "the room's watermark applies to its files",
  );
  const notAdmitted = await dana.get(`/v/${otpRoom}/d/${forAnn}`);
  assert.match(notAdmitted.text, /Send me a code/, 'an address the child does not admit does not pass');
  assert.equal((await dana.get(`/v/${otpRoom}/d/${forAnn}/pages.json`)).status, 403);

  const analytics = (await owner.get(`/api/links/${forDana}/analytics`)).body;
  assert.equal(analytics.views, 2);
  assert.deepEqual(
    analytics.visitors.map((v: { visitor: string }) => v.visitor),
    ['dana@acme.com'],
  );
});

test('an approval child asks for access inside the room and continues once the owner approves', async (t) => {
  const app = await startApp(t);
  const { http: owner } = await app.createAccount('professional');
  const approved = await createLink(owner, await makePdf(1), 'Approved.pdf', { requiresApproval: '1' });
  const room = await createRoom(owner, [approved]);
  const child = `/v/${room}/d/${approved}`;
  const visitor = await inRoom(app, room);

  const gate = await visitor.get(child);
  assert.match(gate.text, /Request access/);
  assert.match(gate.text, new RegExp(`action="${child}/access"`));
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 403);
  assert.match(
    roomEntry((await visitor.get(`/v/${room}`)).text, 'Approved.pdf'),
    /Protected: asks for the owner&#39;s approval|Protected: asks for the owner's approval/,
  );
  assert.equal((await visitor.post(`${child}/access`, { email: 'lee@client.example' })).status, 303);
  const waiting = await visitor.get(child);
  assert.match(waiting.text, new RegExp(`data-status-url="${child}/status"`));
  assert.deepEqual(JSON.parse((await visitor.get(`${child}/status`)).text), { step: 'approval-pending' });
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 403);

  const [request] = (await owner.get(`/api/links/${approved}/requests`)).body.requests;
  assert.equal(request.email, 'lee@client.example');
  assert.equal((await owner.patch(`/api/links/${approved}/requests/${request.id}`, { status: 'approved' })).status, 200);
  assert.deepEqual(JSON.parse((await visitor.get(`${child}/status`)).text), { step: 'approved' });
  assert.match((await visitor.get(child)).text, /id="paged-viewer"/);
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 200);
  assert.equal(await viewsOf(owner, approved), 1);
});

test("a link that is not one of the room's is not found inside it", async (t: TestContext) => {
  const app = await startApp(t);
  const { http: owner } = await app.createAccount('professional');
  const member = await createLink(owner, await makePdf(1), 'Member.pdf');
  const outsider = await createLink(owner, await makePdf(1), 'Outsider.pdf');
  const room = await createRoom(owner, [member]);
  const visitor = await inRoom(app, room);

  const missing = await visitor.get(`/v/${room}/d/${outsider}`);
  assert.equal(missing.status, 404);
  assert.match(missing.text, /Document not found/);
  assert.deepEqual(missing.headers.getSetCookie(), []);
  assert.equal((await visitor.get(`/v/${room}/d/${outsider}/pages.json`)).status, 403);
  assert.equal((await visitor.post(`/v/${room}/d/${outsider}/password`, { password: 'x' })).status, 404);
  assert.equal(await viewsOf(owner, outsider), 0);

  assert.equal((await owner.delete(`/api/links/${member}`)).status, 200);
  assert.equal((await visitor.get(`/v/${room}/d/${member}`)).status, 404, 'a deleted child leaves the room');
});

test("a room names its links by names of its own: a visitor of the room never learns a link's id, which would open it past the room's gates", async (t: TestContext) => {
  const app = await startApp(t);
  const { http: owner } = await app.createAccount('professional');
  const deck = await createLink(owner, await makePdf(2), 'Deck.pdf');
  const guarded = await owner.post('/api/links/room', { name: 'Guarded room', children_ids: [deck] });
  const room = guarded.body.id as string;
  assert.equal((await owner.patch(`/api/links/${room}`, { password: 'room secret', hasWatermark: true })).status, 200);

  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.post(`/v/${room}/password`, { password: 'room secret' })).status, 303);
  const roomPage = (await visitor.get(`/v/${room}`)).text;
  const named = new RegExp(`href="(/v/${room}/d/([0-9a-f]{32}))"`).exec(roomEntry(roomPage, 'Deck.pdf'));
  assert.ok(named, 'the entry links to the name the room gives the deck');
  const [, child, name] = named;
  const childPage = await visitor.get(child!);
  assert.equal(childPage.status, 200);
  await waitFor(
    async () => (await owner.get(`/api/links/${deck}`)).body.document.status,
    (status) => status === 'ready',
    60_000,
  );
  const manifest = await visitor.get(`${child}/pages.json`);
  assert.equal(manifest.status, 200);
  for (const shown of [roomPage, childPage.text, manifest.text]) assert.ok(!shown.includes(deck), "no page of the room shows the link's id");

  // The name opens the deck only inside the room, with the room's session.
  assert.equal((await new VisitorClient(app.url).get(`/v/${name}`)).status, 404, 'the name is not a link of its own');
  assert.equal((await new VisitorClient(app.url).get(child!)).headers.get('location'), `/v/${room}`, 'the room first');
  // The picture unfurling apps show beside the link is found by the name too.
  const picture = await sharp({ create: { width: 1200, height: 630, channels: 3, background: '#1d4ed8' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(picture)], { type: 'image/png' }), 'picture');
  assert.equal((await owner.put(`/api/links/${deck}/preview-image`, form)).status, 200);
  const preview = await fetch(`${app.url}${child}/preview.png`);
  assert.equal(preview.status, 200);
  assert.equal(preview.headers.get('content-type'), 'image/png');
  assert.equal((await owner.patch(`/api/links/${room}/active`, { isActive: false })).status, 200);
  assert.equal((await fetch(`${app.url}${child}/preview.png`)).status, 404, 'not once the room is switched off');
});

test('a visit begun inside a room is found only there: its cookie does not open the link on its own, past the room', async (t: TestContext) => {
  const app = await startApp(t);
  const { http: owner } = await app.createAccount('professional');
  const deck = await createLink(owner, 'the deck', 'Deck.txt');
  const room = await createRoom(owner, [deck]);
  assert.equal((await owner.patch(`/api/links/${room}`, { password: 'room secret', hasWatermark: true })).status, 200);

  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.post(`/v/${room}/password`, { password: 'room secret' })).status, 303);
  const child = new RegExp(`href="(/v/${room}/d/[0-9a-f]{32})"`).exec((await visitor.get(`/v/${room}`)).text)![1]!;
  const opened = await visitor.get(child);
  assert.equal(opened.status, 200);
  const roomVisit = /^lv_room_visit=([^;]+)/.exec(opened.headers.getSetCookie().find((cookie) => cookie.startsWith('lv_room_visit=')) ?? '')?.[1];
  assert.ok(roomVisit, 'the visit of the link inside the room has its cookie');
  assert.equal(JSON.parse((await visitor.get(`${child}/status`)).text).step, 'session', 'it holds a session inside the room');

  const outside = await fetch(`${app.url}/v/${deck}/status`, { headers: { cookie: `lv_visit=${roomVisit}` } });
  assert.equal(
    ((await outside.json()) as { step: string }).step,
    'approved',
    'on its own the link has no session yet: a visit of its own would begin',
  );
  assert.equal((await fetch(`${app.url}/v/${deck}/content`, { headers: { cookie: `lv_visit=${roomVisit}` } })).status, 403);
});

test("the page read inside a room when both sessions ran out counts on the child, up to the child session's end", async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http: owner } = await app.createAccount('professional');
  const deck = await createLink(owner, await makePdf(2), 'Deck.pdf', { viewSessionTtlSeconds: '60' });
  const room = await createRoom(owner, [deck]);
  assert.equal((await owner.patch(`/api/links/${room}`, { viewSessionTtlSeconds: 60 })).status, 200);
  const child = `/v/${room}/d/${deck}`;
  const visitor = await inRoom(app, room);
  assert.equal((await visitor.get(child)).status, 200);

  assert.equal((await visitor.get(`${child}/pages.json`)).status, 200);
  now += 3_600_000;
  assert.equal((await visitor.get(`${child}/pages.json`)).status, 403, 'both sessions are long over');
  const ended = await visitor.postJson(`${child}/track`, { page: 2, seconds: 500 });
  assert.equal(ended.status, 204, ended.text);
  const late = new VisitorClient(app.url);
  assert.equal((await late.postJson(`${child}/track`, { page: 1, seconds: 5 })).status, 403, 'no room session of any age: refused');
  const analytics = (await owner.get(`/api/links/${deck}/analytics`)).body;
  // A view reports at most twice the 60 s it lasted, plus a minute.
  assert.deepEqual(analytics.pages, [{ page: 2, seconds: 180 }]);
  assert.equal((await visitor.postJson(`${child}/track`, { page: 2, seconds: 5 })).status, 429, 'that budget is spent');
  assert.equal((await owner.patch(`/api/links/${room}/active`, { isActive: false })).status, 200);
  assert.equal(
    (await visitor.postJson(`${child}/track`, { page: 2, seconds: 5 })).status,
    403,
    'the room taken down withdrew what its session passed',
  );
});
