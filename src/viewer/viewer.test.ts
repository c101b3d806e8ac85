import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { startApp } from '../../test/helpers/app.js';
import { createLink, downloadToken, limitsReached } from '../../test/helpers/files.js';
import type { HttpClient } from '../../test/helpers/http.js';
import { makePdf } from '../../test/helpers/pdf.js';
import { otpCodeIn, startSmtp } from '../../test/helpers/smtp.js';
import { VisitorClient } from '../../test/helpers/visitor.js';
import { waitFor } from '../../test/helpers/wait.js';

const MINUTE = 60_000;

type TestSmtp = Awaited<ReturnType<typeof startSmtp>>;

/** The code of the `nth` mail (from 1) to `email`, waiting for it at the test SMTP server (the outbox keeps no message once sent). */
async function codeFor(smtp: TestSmtp, email: string, nth = 1): Promise<string> {
  const mailsTo = () => smtp.received.filter((mail) => mail.to.includes(email));
  await smtp.waitFor(email, () => mailsTo().length >= nth);
  return otpCodeIn(mailsTo()[nth - 1]!);
}

/** The link's view count, as its owner reads it through the API. */
async function viewsOf(owner: HttpClient, id: string): Promise<number> {
  const response = await owner.get(`/api/links/${id}`);
  assert.equal(response.status, 200);
  return response.body.views;
}

test('an ungated link opens a session at once, counts one view, and serves the document', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const pdf = await makePdf(2);
  const id = await createLink(http, pdf, 'deck.pdf');
  const visitor = new VisitorClient(app.url);

  const page = await visitor.get(`/v/${id}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /id="paged-viewer"/);
  assert.match(page.headers.get('content-security-policy')!, /frame-ancestors 'self'/);
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  const cookie = page.headers.getSetCookie()[0]!;
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.match(cookie, new RegExp(`Path=/v/${id}`));

  const pages = await visitor.get(`/v/${id}/pages.json`);
  assert.equal(pages.status, 200);
  assert.equal(pages.headers.get('cache-control'), 'private, no-store');
  // A page (stamped with the visitor's address when watermarked) is not left in the browser's cache on a shared computer.
  for (const image of [`/v/${id}/pages/1`, `/v/${id}/pages/1/thumbnail`]) {
    const response = await visitor.get(image);
    assert.equal(response.status, 200, image);
    assert.equal(response.headers.get('cache-control'), 'private, no-store', image);
  }
  assert.equal((await visitor.get(`/v/${id}/content`)).status, 404, 'a PDF leaves as page images only');
  await visitor.get(`/v/${id}`);
  assert.equal(await viewsOf(http, id), 1, 'one session, one view');
  assert.equal((await http.get(`/api/links/${id}`)).body.views, 1);
});

test('document pages need a session of that very link', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const a = await createLink(http, await makePdf(1), 'a.pdf', { viewSessionTtlSeconds: '60' });
  const b = await createLink(http, await makePdf(1), 'b.pdf', { addPassword: '1', password: 'pw' });

  const stranger = new VisitorClient(app.url);
  assert.equal((await stranger.get(`/v/${b}/pages.json`)).status, 403, 'no session');

  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${a}`);
  assert.equal((await visitor.get(`/v/${a}/pages.json`)).status, 200);
  visitor.transplantCookie(`/v/${a}`, `/v/${b}`);
  assert.equal((await visitor.get(`/v/${b}/pages.json`)).status, 403, "another link's session");

  now += 61_000;
  assert.equal((await visitor.get(`/v/${a}/pages.json`)).status, 403, 'after the session TTL');
  assert.equal((await visitor.get(`/v/${a}`)).status, 200, 'a new session opens (the link has no gate)');
  assert.equal(await viewsOf(http, a), 2);

  await http.patch(`/api/links/${a}/active`, { isActive: false });
  assert.equal((await visitor.get(`/v/${a}/pages.json`)).status, 403, 'after deactivation');
  const deactivated = await visitor.get(`/v/${a}`);
  assert.equal(deactivated.status, 403);
  assert.match(deactivated.text, /deactivated/);
});

test('states: not found 404, expired 410, view limit 410', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const visitor = new VisitorClient(app.url);
  const missing = await visitor.get('/v/ThisLinkDoesNotExist1');
  assert.equal(missing.status, 404);
  assert.match(missing.text, /not found/i);
  // A link mistyped or cut in a mail client: the same page, not the API's JSON.
  for (const malformed of ['/v/short', '/v/ThisLinkDoesNotExist1/d/x!', '/v/%E2%98%83']) {
    const page = await visitor.get(malformed);
    assert.equal(page.status, 404, malformed);
    assert.match(page.text, /<!doctype html>[\s\S]*Document not found/i, malformed);
  }

  const capped = await createLink(http, 'x', 'x.txt', { maxViews: '1' });
  assert.equal((await new VisitorClient(app.url).get(`/v/${capped}`)).status, 200);
  const second = await new VisitorClient(app.url).get(`/v/${capped}`);
  assert.equal(second.status, 410);
  assert.match(second.text, /View limit reached/);

  const shortLived = await createLink(http, 'x', 'x.txt', { expiration: '1h' });
  now += 61 * MINUTE;
  const expired = await visitor.get(`/v/${shortLived}`);
  assert.equal(expired.status, 410);
  assert.match(expired.text, /expired/);
});

test('a link deleted while a visitor opens it, passes its gate or reports a page is met as absent, never as a server error', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const open = await createLink(http, 'x', 'x.txt');
  const guarded = await createLink(http, 'secret', 's.txt', { addPassword: '1', password: 'correct horse' });
  const read = await createLink(http, await makePdf(2), 'read.pdf');
  const reader = new VisitorClient(app.url);
  assert.equal((await reader.get(`/v/${read}`)).status, 200);
  // The owner's delete lands right after the visitor's request has read the link, every time.
  const doomed = new Set([open, guarded]);
  const { links } = app.runtime.services;
  const find = links.findForVisitor;
  links.findForVisitor = async (id) => {
    const link = await find(id);
    if (link && doomed.delete(id)) await http.delete(`/api/links/${id}`);
    return link;
  };

  const opened = await new VisitorClient(app.url).get(`/v/${open}`);
  assert.equal(opened.status, 404);
  assert.match(opened.text, /<!doctype html>[\s\S]*Document not found/i);
  const passed = await new VisitorClient(app.url).post(`/v/${guarded}/password`, { password: 'correct horse' });
  assert.equal(passed.status, 404);
  assert.match(passed.text, /Document not found/);
  for (const id of [open, guarded]) assert.equal((await http.get(`/api/links/${id}`)).status, 404, 'the owner deleted each meanwhile');

  // A page report whose visit goes between the session check and the write: the database drops
  // the visit as the report is written (and rolls that back with the failed write).
  const { db } = app.runtime.database;
  if (app.runtime.config.database.kind === 'postgres') {
    await sql`create function drop_visit() returns trigger language plpgsql as $$
      begin delete from visits where id = new.visit_id; return new; end $$`.execute(db);
    await sql`create trigger drop_visit before insert on page_views for each row execute function drop_visit()`.execute(db);
  } else {
    await sql`create trigger drop_visit before insert on page_views begin delete from visits where id = new.visit_id; end`.execute(db);
  }
  assert.equal((await reader.postJson(`/v/${read}/track`, { page: 1, seconds: 5 })).status, 403);
});

test('maxViews holds under a race: 50 visitors, maxViews=10, exactly 10 sessions', async (t) => {
  // 50 visitors from one address: the limit per client network is the next test's.
  const app = await startApp(t, { env: { VIEWS_PER_CLIENT_PER_MINUTE: '1000' } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'limited', 'l.txt', { maxViews: '10' });
  const statuses = await Promise.all(Array.from({ length: 50 }, () => new VisitorClient(app.url).get(`/v/${id}`).then((r) => r.status)));
  assert.equal(statuses.filter((s) => s === 200).length, 10);
  assert.equal(statuses.filter((s) => s === 410).length, 40);
  assert.equal(await viewsOf(http, id), 10);
});

test('one client network opens at most 30 views of a link a minute; a reload in a live session opens none', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'deck', 'deck.txt');
  const other = await createLink(http, 'memo', 'memo.txt');
  const first = new VisitorClient(app.url);
  assert.equal((await first.get(`/v/${id}`)).status, 200);
  for (let n = 2; n <= 30; n++) assert.equal((await new VisitorClient(app.url).get(`/v/${id}`)).status, 200, `visitor ${n}`);

  const refused = await new VisitorClient(app.url).get(`/v/${id}`);
  assert.equal(refused.status, 429);
  assert.match(refused.text, /opened too many times from your network in the last minute/);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.deepEqual(refused.headers.getSetCookie(), [], 'no visit begun');
  assert.equal(await viewsOf(http, id), 30);

  assert.equal((await first.get(`/v/${id}`)).status, 200, 'a reload inside the session opens no view');
  assert.equal(await viewsOf(http, id), 30);
  assert.equal((await new VisitorClient(app.url).get(`/v/${other}`)).status, 200, 'each link counts on its own');
});

test('one client network begins at most 30 visits of a link a minute: gate forms posted without a cookie make no row past that', async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'for partners', 'p.txt', { requireEmail: '1' });
  const visitsOf = async () =>
    (
      await app.runtime.database.db
        .selectFrom('visits')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('link_id', '=', id)
        .executeTakeFirstOrThrow()
    ).n;
  const from = (network: string) => new VisitorClient(app.url, { 'x-forwarded-for': network });
  const statuses: number[] = [];
  for (let n = 0; n < 31; n++) statuses.push((await from('198.51.100.7').post(`/v/${id}/email`, { email: `v${n}@example.org` })).status);
  assert.deepEqual(statuses, [...Array<number>(30).fill(303), 429]);
  assert.equal(Number(await visitsOf()), 30);
  assert.equal((await from('203.0.113.9').post(`/v/${id}/email`, { email: 'elsewhere@example.org' })).status, 303, 'another network is not held');
});

test('OTP gate: allowed addresses only, 6-digit code, 5 wrong tries burn it, 3 codes per 10 minutes', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'for partners', 'p.txt', { requiresOtp: '1', allowedEmails: 'ann@solo.com', allowedDomains: 'partner.io' });
  const visitor = new VisitorClient(app.url);
  assert.match((await visitor.get(`/v/${id}`)).text, /Send me a code/);

  const refused = await visitor.post(`/v/${id}/otp`, { email: 'eve@evil.com' });
  assert.equal(refused.status, 422);
  assert.match(refused.text, /not allowed/);
  assert.doesNotMatch(refused.text, /partner\.io|ann@solo\.com/, 'the lists stay secret');

  const sent = await visitor.post(`/v/${id}/otp`, { email: 'Bob@Partner.IO' });
  assert.equal(sent.status, 303);
  assert.match((await visitor.get(`/v/${id}`)).text, /bob@partner\.io/);
  const code = await codeFor(smtp, 'bob@partner.io');
  assert.match(code, /^\d{6}$/);
  const wrong = code === '000000' ? '111111' : '000000';
  for (let i = 0; i < 4; i++) assert.equal((await visitor.post(`/v/${id}/otp/verify`, { code: wrong })).status, 422);
  const burnt = await visitor.post(`/v/${id}/otp/verify`, { code: wrong });
  assert.match(burnt.text, /Too many wrong codes/);
  assert.equal((await visitor.post(`/v/${id}/otp/verify`, { code })).status, 422, 'the right code no longer works');

  // Each code's mail is awaited before the next is asked for: two mails sent together may arrive in either order.
  assert.equal((await visitor.post(`/v/${id}/otp`, { email: 'bob@partner.io' })).status, 303);
  await codeFor(smtp, 'bob@partner.io', 2);
  assert.equal((await visitor.post(`/v/${id}/otp`, { email: 'bob@partner.io' })).status, 303);
  const fresh = await codeFor(smtp, 'bob@partner.io', 3);
  const throttled = await visitor.post(`/v/${id}/otp`, { email: 'bob@partner.io' });
  assert.equal(throttled.status, 429, 'a 4th code within 10 minutes');
  assert.ok(Number(throttled.headers.get('retry-after')) > 0);

  assert.equal((await visitor.post(`/v/${id}/otp/verify`, { code: fresh })).status, 303);
  assert.match((await visitor.get(`/v/${id}`)).text, /class="document"/);
});

test('e-mail codes across links: 10 an hour to one mailbox (plus-tags are the same mailbox), 30 per 10 minutes from one client network', async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http } = await app.createAccount('professional');
  const links: string[] = [];
  for (let n = 0; n < 4; n++) links.push(await createLink(http, `deal ${n}`, 'd.txt', { requiresOtp: '1', allowedDomains: 'victim.example' }));
  const ask = (link: string, email: string, from: string) =>
    new VisitorClient(app.url, { 'x-forwarded-for': from }).post(`/v/${link}/otp`, { email });

  const toOneMailbox: Array<{ status: number; text: string }> = [];
  let client = 0;
  for (const link of links) {
    for (let n = 0; n < 3; n++) toOneMailbox.push(await ask(link, `ceo+${n}@victim.example`, `198.51.100.${++client}`));
  }
  assert.deepEqual(
    toOneMailbox.map((response) => response.status),
    [303, 303, 303, 303, 303, 303, 303, 303, 303, 303, 429, 429],
  );
  assert.match(toOneMailbox.at(-1)!.text, /sent to this address in the last hour/);

  const fromOneNetwork: number[] = [];
  for (const [n, link] of links.entries()) {
    for (let m = 0; m < 8; m++) fromOneNetwork.push((await ask(link, `staff${n}-${m}@victim.example`, '203.0.113.7')).status);
  }
  assert.deepEqual(fromOneNetwork, [...Array<number>(30).fill(303), 429, 429]);
});

test('password gate: wrong then right; 10 wrong tries per IP and link in 10 minutes → 429', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'secret', 's.txt', { addPassword: '1', password: 'correct horse' });
  const visitor = new VisitorClient(app.url);
  assert.match((await visitor.get(`/v/${id}`)).text, /type="password"/);
  const wrong = await visitor.post(`/v/${id}/password`, { password: 'nope' });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /not right/);
  assert.equal((await visitor.post(`/v/${id}/password`, { password: 'correct horse' })).status, 303);
  assert.match((await visitor.get(`/v/${id}`)).text, /class="document"/);

  const target = await createLink(http, 'secret', 's.txt', { addPassword: '1', password: 'correct horse' });
  const attacker = new VisitorClient(app.url);
  for (let i = 0; i < 10; i++) assert.equal((await attacker.post(`/v/${target}/password`, { password: `guess${i}` })).status, 422);
  const limited = await attacker.post(`/v/${target}/password`, { password: 'correct horse' });
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
});

test('behind one proxy (TRUST_PROXY=1) the client is the address the proxy added: entries the client wrote itself change nothing', async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'secret', 's.txt', { addPassword: '1', password: 'correct horse' });
  // The client writes its own X-Forwarded-For; the proxy appends the address it saw.
  const forging = (i: number) => new VisitorClient(app.url, { 'x-forwarded-for': `198.51.100.${i + 1}, 203.0.113.50` });
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await forging(i).post(`/v/${id}/password`, { password: `guess${i}` })).status);
  assert.deepEqual(statuses, [...Array<number>(10).fill(422), 429], 'one client, however it names itself');

  const approval = await createLink(http, 'board pack', 'b.txt', { requiresApproval: '1' });
  await forging(0).post(`/v/${approval}/access`, { email: 'x@example.com' });
  const [request] = (await http.get(`/api/links/${approval}/requests`)).body.requests;
  assert.equal(request.visitorIp, '203.0.113.50', 'the owner sees the address the proxy saw');
});

test('password gate: an IPv6 client is counted by its /64, since it may pick a new address in it for each try', async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'secret', 's.txt', { addPassword: '1', password: 'correct horse' });
  const from = (address: string) => new VisitorClient(app.url, { 'x-forwarded-for': address });
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++)
    statuses.push((await from(`2001:db8:7:1::${(i + 1).toString(16)}`).post(`/v/${id}/password`, { password: `guess${i}` })).status);
  assert.deepEqual(statuses, [...Array<number>(10).fill(422), 429]);
  assert.equal(
    (await from('2001:db8:7:2::1').post(`/v/${id}/password`, { password: 'correct horse' })).status,
    303,
    'the next /64 is another client',
  );
});

test('password gate: all clients together get 100 wrong tries per link, password and hour; a new password lets visitors in again', async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'secret', 's.txt', { addPassword: '1', password: 'correct horse' });
  const other = await createLink(http, 'secret too', 's.txt', { addPassword: '1', password: 'correct horse' });
  const from = (i: number) => new VisitorClient(app.url, { 'x-forwarded-for': `203.0.${Math.floor(i / 250)}.${(i % 250) + 1}` });
  let wrong = 0;
  for (let i = 0; i < 100; i++) if ((await from(i).post(`/v/${id}/password`, { password: `guess${i}` })).status === 422) wrong++;
  assert.equal(wrong, 100, 'each address tried once');
  const refused = await from(100).post(`/v/${id}/password`, { password: 'correct horse' });
  assert.equal(refused.status, 429, 'the 101st try on the link waits, even with the right password');
  assert.match(refused.text, /this document/);
  assert.equal((await from(100).post(`/v/${other}/password`, { password: 'correct horse' })).status, 303, 'other links are not affected');
  assert.match(refused.text, /ask the sender for a new password/, 'the visitor is told the remedy');
  assert.equal((await from(101).post(`/v/${id}/password`, { password: 'guess again' })).status, 429);
  assert.deepEqual(await limitsReached(http, id), ['password'], 'the owner is told once, when the limit is first reached');

  // The owner's remedy: the tries were on the old password, the new one has a window of its own.
  assert.equal((await http.patch(`/api/links/${id}/password`, { password: 'battery staple' })).status, 200);
  assert.equal((await from(101).post(`/v/${id}/password`, { password: 'battery staple' })).status, 303, 'a new password is checked at once');
  assert.equal((await from(102).post(`/v/${id}/password`, { password: 'correct horse' })).status, 422, 'the old one is only wrong now');
});

test('a new password holds back every visit that passed the old one, a live view too, until the new one is entered', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(1), 'deal.pdf', { addPassword: '1', password: 'correct horse' });
  const waiting = new VisitorClient(app.url);
  assert.equal((await waiting.post(`/v/${id}/password`, { password: 'correct horse' })).status, 303, 'passed, its view not opened yet');
  const reading = new VisitorClient(app.url);
  assert.equal((await reading.post(`/v/${id}/password`, { password: 'correct horse' })).status, 303);
  assert.match((await reading.get(`/v/${id}`)).text, /class="document"/);
  assert.equal(await viewsOf(http, id), 1);

  assert.equal((await http.patch(`/api/links/${id}/password`, { password: 'battery staple' })).status, 200);
  for (const visitor of [waiting, reading]) {
    assert.match((await visitor.get(`/v/${id}`)).text, /type="password"/);
    assert.equal((await visitor.get(`/v/${id}/pages.json`)).status, 403);
  }
  assert.equal((await reading.post(`/v/${id}/password`, { password: 'correct horse' })).status, 422);
  assert.equal((await reading.post(`/v/${id}/password`, { password: 'battery staple' })).status, 303);
  assert.equal((await reading.get(`/v/${id}/pages.json`)).status, 200, 'the same view goes on');
  assert.equal(await viewsOf(http, id), 1, 'and counts no second view');
});

test("an address taken off the OTP gate's list loses its pass, a live view too", async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(1), 'deal.pdf', { requiresOtp: '1', allowedEmails: 'bob@partner.io,ann@partner.io' });
  const bob = new VisitorClient(app.url);
  assert.equal((await bob.post(`/v/${id}/otp`, { email: 'bob@partner.io' })).status, 303);
  assert.equal((await bob.post(`/v/${id}/otp/verify`, { code: await codeFor(smtp, 'bob@partner.io') })).status, 303);
  assert.match((await bob.get(`/v/${id}`)).text, /class="document"/);

  assert.equal((await http.patch(`/api/links/${id}`, { allowedEmails: ['ann@partner.io'] })).status, 200);
  assert.equal((await bob.get(`/v/${id}/pages.json`)).status, 403);
  assert.match((await bob.get(`/v/${id}`)).text, /Send me a code/);
});

test('approval gate and the owner API: request, list, approve or deny, pending count', async (t) => {
  const app = await startApp(t, { env: { TRUST_PROXY: '1' } });
  const owner = await app.createAccount('professional');
  const other = await app.createAccount('professional');
  const id = await createLink(owner.http, 'board pack', 'b.txt', { requiresApproval: '1' });
  const plain = await createLink(owner.http, 'open', 'o.txt');

  const visitor = new VisitorClient(app.url, { 'x-forwarded-for': '203.0.113.7' });
  assert.match((await visitor.get(`/v/${id}`)).text, /Request access/);
  assert.equal((await visitor.post(`/v/${id}/access`, { email: 'Carol@Example.com' })).status, 303);
  const waiting = await visitor.get(`/v/${id}`);
  assert.match(waiting.text, /Waiting for the owner/);
  assert.deepEqual(JSON.parse((await visitor.get(`/v/${id}/status`)).text), { step: 'approval-pending' });
  assert.equal((await visitor.get(`/v/${id}/content`)).status, 403);

  const listed = await owner.http.get(`/api/links/${id}/requests`);
  assert.equal(listed.status, 200);
  const [request] = listed.body.requests;
  assert.deepEqual(
    { ...request, created_at: undefined },
    { id: request.id, visitorIp: '203.0.113.7', status: 'pending', email: 'carol@example.com', emailVerified: false, created_at: undefined },
  );
  assert.deepEqual((await owner.http.get('/api/links/pending-count')).body, { count: 1 });
  assert.equal((await other.http.get('/api/links/pending-count')).body.count, 0);
  const waitingOverAll = (await owner.http.get('/api/links/pending-requests')).body.requests;
  assert.deepEqual(
    waitingOverAll.map(({ created_at: _at, ...rest }: { created_at: string }) => rest),
    [{ id: request.id, linkId: id, linkName: 'b.txt', email: 'carol@example.com', emailVerified: false, visitorIp: '203.0.113.7' }],
  );
  assert.deepEqual((await other.http.get('/api/links/pending-requests')).body, { requests: [] }, 'another account sees none of them');
  const ownerMail = await app.runtime.database.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', owner.email).executeTakeFirst();
  assert.match(ownerMail!.subject, /carol@example\.com/, 'the owner is e-mailed');

  assert.equal((await owner.http.get(`/api/links/${plain}/requests`)).status, 422, 'link without approval');
  assert.equal((await owner.http.patch(`/api/links/${id}/requests/${request.id}`, { status: 'maybe' })).status, 400);
  assert.equal((await owner.http.patch(`/api/links/${id}/requests/999999`, { status: 'approved' })).status, 404);
  assert.equal((await other.http.patch(`/api/links/${id}/requests/${request.id}`, { status: 'approved' })).status, 404, 'tenancy');
  assert.equal((await other.http.get(`/api/links/${id}/requests`)).status, 404, 'tenancy');

  const approved = await owner.http.patch(`/api/links/${id}/requests/${request.id}`, { status: 'approved' });
  assert.deepEqual(approved.body, { ok: true, status: 'approved' });
  assert.notEqual(JSON.parse((await visitor.get(`/v/${id}/status`)).text).step, 'approval-pending');
  assert.match((await visitor.get(`/v/${id}`)).text, /class="document"/);
  assert.equal((await owner.http.get('/api/links/pending-count')).body.count, 0);
  assert.deepEqual((await owner.http.get('/api/links/pending-requests')).body, { requests: [] }, 'an answered request no longer waits');

  const denied = new VisitorClient(app.url);
  await denied.post(`/v/${id}/access`, { email: 'mallory@example.com' });
  const second = (await owner.http.get(`/api/links/${id}/requests`)).body.requests[0];
  assert.equal((await owner.http.post(`/api/links/${id}/requests/${second.id}`, { status: 'denied' })).body.status, 'denied');
  const deniedPage = await denied.get(`/v/${id}`);
  assert.equal(deniedPage.status, 403);
  assert.match(deniedPage.text, /declined/);
});

test('requests wait only while the owner can answer them: not once the link stops asking for approval or expires, and then 422 or 410', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'board pack', 'b.txt', { requiresApproval: '1' });
  await new VisitorClient(app.url).post(`/v/${id}/access`, { email: 'carol@example.com' });
  const [request] = (await http.get(`/api/links/${id}/requests`)).body.requests;
  const waiting = async () => ({
    count: (await http.get('/api/links/pending-count')).body.count,
    listed: (await http.get('/api/links/pending-requests')).body.requests.length,
  });
  assert.deepEqual(await waiting(), { count: 1, listed: 1 });

  assert.equal((await http.patch(`/api/links/${id}/approval`, { requiresApproval: false })).status, 200);
  assert.deepEqual(await waiting(), { count: 0, listed: 0 }, 'visitors now enter without an answer');
  assert.equal((await http.patch(`/api/links/${id}/requests/${request.id}`, { status: 'approved' })).status, 422);
  assert.equal((await http.patch(`/api/links/${id}/approval`, { requiresApproval: true })).status, 200);
  assert.deepEqual(await waiting(), { count: 1, listed: 1 }, 'asking again, the request waits again');

  now += 8 * 86_400_000;
  assert.deepEqual(await waiting(), { count: 0, listed: 0 }, 'an expired link lets nobody in');
  assert.equal((await http.get(`/api/links/${id}/requests`)).status, 410);
  assert.equal((await http.patch(`/api/links/${id}/requests/${request.id}`, { status: 'approved' })).status, 410);
});

test('the same decision on an access request again (a second click, requests sent together) tells the visitor and the owner once', async (t) => {
  const app = await startApp(t);
  const { http, accountId } = await app.createAccount('professional');
  const id = await createLink(http, 'board pack', 'b.txt', { requiresApproval: '1' });
  await new VisitorClient(app.url).post(`/v/${id}/access`, { email: 'carol@example.com' });
  const [request] = (await http.get(`/api/links/${id}/requests`)).body.requests;
  const answers = await Promise.all(Array.from({ length: 6 }, () => http.patch(`/api/links/${id}/requests/${request.id}`, { status: 'approved' })));
  assert.deepEqual(
    answers.map((answer) => answer.body),
    Array(6).fill({ ok: true, status: 'approved' }),
  );
  const { db } = app.runtime.database;
  const mails = await db.selectFrom('mail_outbox').select('id').where('to_address', '=', 'carol@example.com').execute();
  assert.equal(mails.length, 1, 'one mail to the visitor');
  const decided = await db
    .selectFrom('audit_log')
    .select('id')
    .where('account_id', '=', accountId)
    .where('action', '=', 'access_request.decided')
    .execute();
  assert.equal(decided.length, 1);

  assert.deepEqual((await http.patch(`/api/links/${id}/requests/${request.id}`, { status: 'denied' })).body, { ok: true, status: 'denied' });
  assert.equal(
    (await db.selectFrom('mail_outbox').select('id').where('to_address', '=', 'carol@example.com').execute()).length,
    2,
    'a change of mind is told',
  );
});

test('the visitor IP comes from X-Forwarded-For only when TRUST_PROXY is set', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'x', 'x.txt', { requiresApproval: '1' });
  await new VisitorClient(app.url, { 'x-forwarded-for': '203.0.113.9' }).post(`/v/${id}/access`, { email: 'x@example.com' });
  const [request] = (await http.get(`/api/links/${id}/requests`)).body.requests;
  assert.equal(request.visitorIp, '127.0.0.1');
});

test('watermark and preview are burned in on the server', async (t) => {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url } });
  const { http } = await app.createAccount('professional');
  const original = await makePdf(5);
  const marked = await createLink(http, original, 'marked.pdf', { hasWatermark: '1', requiresOtp: '1', allowedDomains: 'example.com' });
  const visitor = new VisitorClient(app.url);
  await visitor.post(`/v/${marked}/otp`, { email: 'zoe@example.com' });
  await visitor.post(`/v/${marked}/otp/verify`, { code: await codeFor(smtp, 'zoe@example.com') });
  await visitor.get(`/v/${marked}`);
  assert.equal((await visitor.get(`/v/${marked}/content`)).status, 404, 'a watermarked visitor never receives the PDF');
  await waitFor(
    async () => (await http.get(`/api/links/${marked}`)).body.document.status,
    (status) => status === 'ready',
    60_000,
  );
  const manifest = JSON.parse((await visitor.get(`/v/${marked}/pages.json`)).text) as { pages: { text: string | null }[] };
  assert.equal(manifest.pages.length, 5);
  assert.ok(
    manifest.pages.every((page) => page.text === null),
    'no clean text under a watermark',
  );
  const stamped = await visitor.get(`/v/${marked}/pages/1`);
  assert.equal(stamped.headers.get('content-type'), 'image/jpeg', 'a stamped copy is a JPEG');

  const preview = await createLink(http, original, 'preview.pdf', { previewPages: '2' });
  const reader = new VisitorClient(app.url);
  await reader.get(`/v/${preview}`);
  await waitFor(
    async () => JSON.parse((await reader.get(`/v/${preview}/pages.json`)).text) as { status: string; totalPages: number; visiblePages: number },
    (cut) => cut.status === 'ready',
    60_000,
  ).then((cut) => assert.deepEqual([cut.totalPages, cut.visiblePages], [5, 2]));
  assert.equal((await reader.get(`/v/${preview}/pages/3`)).status, 404, 'past the preview');
  assert.equal((await reader.get(`/v/${preview}/content`)).status, 404);

  const video = await createLink(http, Buffer.from('\x00\x00\x00\x18ftypmp42'), 'clip.mp4', { hasWatermark: '1' });
  const watcher = new VisitorClient(app.url);
  assert.match((await watcher.get(`/v/${video}`)).text, /cannot carry a watermark/);
  assert.equal((await watcher.get(`/v/${video}/content`)).status, 404, 'an unmarkable file is never sent');
});

test('HEAD, as link checkers and mail scanners send it, opens no view and spends no download', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'once', 'once.txt', { maxViews: '1', allowDownload: '1' });
  const checker = new VisitorClient(app.url);
  for (let n = 0; n < 3; n++) {
    const head = await checker.request('HEAD', `/v/${id}`);
    assert.equal(head.status, 200);
    assert.deepEqual(head.headers.getSetCookie(), [], 'no visit begins');
  }
  assert.equal((await http.get(`/api/links/${id}`)).body.views, 0);

  const reader = new VisitorClient(app.url);
  assert.equal((await reader.get(`/v/${id}`)).status, 200, 'the one view is still there to take');
  assert.equal((await http.get(`/api/links/${id}`)).body.views, 1);
  const headOfDownload = await reader.request('HEAD', `/v/${id}/download`);
  assert.equal(headOfDownload.status, 405);
  assert.equal(headOfDownload.headers.get('allow'), 'GET');
  assert.equal((await reader.get(`/v/${id}/download`)).text, 'once');

  const token = await downloadToken(http, id, 1);
  const original = `/api/links/${id}/download-original?token=${token}`;
  assert.equal((await checker.request('HEAD', original)).status, 405);
  assert.equal((await checker.request('HEAD', `/v/${id}/download-original?token=${token}`)).status, 405);
  assert.equal((await checker.get(original)).text, 'once', "the token's one use was not spent");
  assert.equal((await checker.get(original)).status, 403);
  const events = (await http.get('/api/analytics/global')).body.recentActivity as Array<{ type: string }>;
  assert.equal(events.filter((event) => event.type === 'link.downloaded').length, 2);
});

test('the page read when the view session ran out is counted up to its end, unless the owner withdrew what it passed', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'x', 'x.txt', { addPassword: '1', password: 'pw', viewSessionTtlSeconds: '60' });
  const visitor = new VisitorClient(app.url);
  await visitor.post(`/v/${id}/password`, { password: 'pw' });
  assert.equal((await visitor.get(`/v/${id}`)).status, 200);

  now += 90_000;
  assert.equal((await visitor.get(`/v/${id}/pages.json`)).status, 403, 'the session has ended');
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 80 })).status, 204, 'the page turned or left after the end');
  // A view reports at most twice the 60 s it lasted, plus a minute, however late the report comes.
  now += 3_600_000;
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 500 })).status, 204);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 5 })).status, 429);
  const seconds = async () => (await app.runtime.database.db.selectFrom('page_views').select('seconds').execute()).map((row) => row.seconds);
  assert.deepEqual(await seconds(), [80, 100]);

  const again = new VisitorClient(app.url);
  await again.post(`/v/${id}/password`, { password: 'pw' });
  assert.equal((await again.get(`/v/${id}`)).status, 200);
  now += 61_000;
  assert.equal((await http.patch(`/api/links/${id}/password`, { password: 'new secret' })).status, 200);
  assert.equal((await again.postJson(`/v/${id}/track`, { page: 1, seconds: 30 })).status, 403, 'a new password withdrew the pass');
  assert.deepEqual(await seconds(), [80, 100]);
});

test('time per page is accepted only from a session of that link, within sane values', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'x', 'x.txt');
  const other = await createLink(http, 'y', 'y.txt', { addPassword: '1', password: 'pw' });
  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${id}`);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 12 })).status, 204);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 0, seconds: 12 })).status, 400);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 99999 })).status, 400);
  visitor.transplantCookie(`/v/${id}`, `/v/${other}`);
  assert.equal((await visitor.postJson(`/v/${other}/track`, { page: 1, seconds: 5 })).status, 403);
  const rows = await app.runtime.database.db.selectFrom('page_views').selectAll().execute();
  assert.deepEqual(
    rows.map((r) => [r.page, r.seconds]),
    [[1, 12]],
  );
});
