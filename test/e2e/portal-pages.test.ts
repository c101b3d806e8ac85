import assert from 'node:assert/strict';
import http from 'node:http';
import { test, type TestContext } from 'node:test';
import sharp from 'sharp';
import { sha256Hex } from '../../src/infra/crypto/tokens.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { claimVerifiedDomain, startDnsServer } from '../helpers/dns-server.js';
import { createLink } from '../helpers/files.js';
import type { HttpClient } from '../helpers/http.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';
import { VisitorClient } from '../helpers/visitor.js';

const HOUR = 3_600_000;

interface PortalTestApp extends TestApp {
  /** The next code mailed to `email` through the real SMTP peer (read after each request, they stay in order). */
  codeFor(email: string): Promise<string>;
}

async function startPortalApp(t: TestContext, clock?: () => number, env: Record<string, string> = {}): Promise<PortalTestApp> {
  const smtp = await startSmtp(t);
  const app = await startApp(t, { env: { SMTP_URL: smtp.url, ...env }, clock });
  const read = new Map<string, number>();
  async function codeFor(email: string): Promise<string> {
    const index = read.get(email) ?? 0;
    const mail = await smtp.waitFor(email, (candidate) => smtp.received.filter((m) => m.to.includes(email)).indexOf(candidate) === index);
    read.set(email, index + 1);
    return otpCodeIn(mail);
  }
  return Object.assign(app, { codeFor });
}

async function createPortal(owner: HttpClient, slug: string, allowedEmails: string[], linkIds: string[] = []): Promise<string> {
  const created = await owner.post('/api/client-portals', { name: `Portal ${slug}`, slug, allowedEmails });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  if (linkIds.length > 0) assert.equal((await owner.post(`/api/client-portals/${created.body.id}/links`, { linkIds })).status, 200);
  return created.body.id;
}

/** A client signed in to the portal at `slug` as `email`. */
async function signIn(app: PortalTestApp, slug: string, email: string): Promise<VisitorClient> {
  const client = new VisitorClient(app.url);
  assert.equal((await client.post(`/p/${slug}/email`, { email })).status, 303);
  assert.equal((await client.post(`/p/${slug}/verify`, { code: await app.codeFor(email) })).status, 303);
  return client;
}

test('portal pages: unknown slug 404; the same security headers as /v pages; the e-mail step first', async (t) => {
  const app = await startPortalApp(t);
  const { http: owner } = await app.createAccount('professional');
  await createPortal(owner, 'acme', ['dana@acme.com']);
  const client = new VisitorClient(app.url);

  const missing = await client.get('/p/nobody-here');
  assert.equal(missing.status, 404);
  assert.match(missing.text, /Portal not found/);

  const page = await client.get('/p/acme');
  assert.equal(page.status, 200);
  assert.match(page.text, /Portal acme/);
  assert.match(page.text, /action="\/p\/acme\/email"/);
  assert.doesNotMatch(page.text, /dana@acme\.com/, 'the allowed list stays secret');
  for (const response of [page, missing]) {
    const csp = response.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /frame-ancestors 'self'/);
    assert.match(csp, /style-src 'self' 'nonce-/);
    assert.equal(response.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('cache-control'), 'private, no-store');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  }
  assert.deepEqual(page.headers.getSetCookie(), [], 'no session before an allowed address asks for a code');
});

test('sign-in: a refused address says so; a code by mail; a signed, HttpOnly, path-scoped session stored hashed', async (t) => {
  const app = await startPortalApp(t);
  const { http: owner } = await app.createAccount('professional');
  const portalId = await createPortal(owner, 'acme', ['dana@acme.com', 'lee@acme.com']);
  const client = new VisitorClient(app.url);

  const refused = await client.post('/p/acme/email', { email: 'eve@evil.com' });
  assert.equal(refused.status, 422);
  assert.match(refused.text, /not allowed into this portal/);
  assert.doesNotMatch(refused.text, /dana@acme\.com|lee@acme\.com/, 'without revealing the list');
  assert.deepEqual(refused.headers.getSetCookie(), []);
  const mistyped = await client.get('/p/Acme%20Corp');
  assert.equal(mistyped.status, 404);
  assert.match(mistyped.text, /<!doctype html>[\s\S]*Portal not found/i, 'a slug no portal could have is the page, not JSON');
  const malformed = await client.post('/p/acme/email', { email: 'not an address' });
  assert.equal(malformed.status, 400);
  assert.match(malformed.text, /valid e-mail/);
  assert.equal((await client.post('/p/acme/verify', { code: '123456' })).status, 422, 'no code asked for yet');
  const rows = await app.runtime.database.db.selectFrom('otp_codes').select('scope').execute();
  assert.deepEqual(rows, [], 'no code for a refused address');

  const sent = await client.post('/p/acme/email', { email: ' Dana@ACME.com ' });
  assert.equal(sent.status, 303);
  assert.equal(sent.headers.get('location'), '/p/acme');
  const cookie = sent.headers.getSetCookie()[0]!;
  assert.match(cookie, /^lv_portal=/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.match(cookie, /Path=\/p\/acme(;|$)/);
  const codeStep = await client.get('/p/acme');
  assert.match(codeStep.text, /dana@acme\.com/);
  assert.match(codeStep.text, /action="\/p\/acme\/verify"/);

  const code = await app.codeFor('dana@acme.com');
  assert.deepEqual(await app.runtime.database.db.selectFrom('otp_codes').select('scope').execute(), [{ scope: `portal:${portalId}` }]);
  const wrong = await client.post('/p/acme/verify', { code: code === '000000' ? '111111' : '000000' });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /not right; 4 tries left/);

  const verified = await client.post('/p/acme/verify', { code });
  assert.equal(verified.status, 303);
  const sessionCookie = verified.headers.getSetCookie()[0]!;
  assert.match(sessionCookie, /Max-Age=43200/, '12 hours');
  const token = decodeURIComponent(/^lv_portal=([^;]+)/.exec(sessionCookie)![1]!).replace(/\.[^.]+$/, '');
  const session = await app.runtime.database.db.selectFrom('portal_sessions').selectAll().executeTakeFirstOrThrow();
  assert.equal(session.token_hash, sha256Hex(token), 'stored as a hash');
  assert.equal(session.email, 'dana@acme.com');
  assert.doesNotMatch(JSON.stringify(session), new RegExp(token));

  const list = await client.get('/p/acme');
  assert.equal(list.status, 200);
  assert.match(list.text, /Signed in as <strong>dana@acme\.com<\/strong>/);

  const forged = new VisitorClient(app.url, { cookie: `lv_portal=${token}` });
  assert.match((await forged.get('/p/acme')).text, /action="\/p\/acme\/email"/, 'an unsigned token is worth nothing');
});

test('the list: assigned links only, expired and inactive hidden, with name and type', async (t) => {
  let now = Date.now();
  const app = await startPortalApp(t, () => now);
  const { http: owner } = await app.createAccount('professional');
  const deck = await createLink(owner, '%PDF-1.4 fake', 'Deck.pdf');
  const notes = await createLink(owner, 'notes', 'Notes.txt');
  const paused = await createLink(owner, 'paused', 'Paused.txt');
  const shortLived = await createLink(owner, 'soon gone', 'Soon.txt', { expiration: '1h' });
  const unassigned = await createLink(owner, 'elsewhere', 'Elsewhere.txt');
  await owner.patch(`/api/links/${paused}/active`, { isActive: false });
  await createPortal(owner, 'acme', ['dana@acme.com'], [deck, notes, paused, shortLived]);
  const client = await signIn(app, 'acme', 'dana@acme.com');

  let list = (await client.get('/p/acme')).text;
  for (const name of ['Deck.pdf', 'Notes.txt', 'Soon.txt']) assert.match(list, new RegExp(name));
  assert.match(list, /Deck\.pdf<\/span> <span class="file-meta">PDF/);
  assert.match(list, /Notes\.txt<\/span> <span class="file-meta">Text/);
  assert.doesNotMatch(list, /Paused\.txt|Elsewhere\.txt/);
  assert.match(list, new RegExp(`href="/p/acme/open/${deck}"`));

  now += HOUR + 1000;
  list = (await client.get('/p/acme')).text;
  assert.doesNotMatch(list, /Soon\.txt/, 'expired links are hidden');
  for (const hidden of [paused, shortLived, unassigned]) {
    const opened = await client.get(`/p/acme/open/${hidden}`);
    assert.equal(opened.status, 404, hidden);
    assert.match(opened.text, /Document not found/);
  }
  assert.equal((await client.get('/p/acme/open/NoSuchLinkAnywhere1')).status, 404);
});

test('opening a link: an OTP gate for the portal address counts as passed; other gates still apply', async (t) => {
  const app = await startPortalApp(t);
  const { http: owner } = await app.createAccount('professional');
  const forDana = await createLink(owner, 'for dana', 'ForDana.txt', { requiresOtp: '1', allowedEmails: 'dana@acme.com' });
  const forDomain = await createLink(owner, 'for acme', 'ForAcme.txt', { requiresOtp: '1', allowedDomains: 'acme.com', maxViews: '5' });
  const forSomeoneElse = await createLink(owner, 'for ann', 'ForAnn.txt', { requiresOtp: '1', allowedEmails: 'ann@solo.com' });
  const withPassword = await createLink(owner, 'secret', 'Secret.txt', { addPassword: '1', password: 'open sesame' });
  const withApproval = await createLink(owner, 'approved', 'Approved.txt', { requiresApproval: '1' });
  const otpAndPassword = await createLink(owner, 'both', 'Both.txt', {
    requiresOtp: '1',
    allowedEmails: 'dana@acme.com',
    addPassword: '1',
    password: 'pw',
  });
  await createPortal(owner, 'acme', ['dana@acme.com'], [forDana, forDomain, forSomeoneElse, withPassword, withApproval, otpAndPassword]);

  const stranger = new VisitorClient(app.url);
  const notSignedIn = await stranger.get(`/p/acme/open/${forDana}`);
  assert.equal(notSignedIn.status, 303);
  assert.equal(notSignedIn.headers.get('location'), '/p/acme');
  assert.deepEqual(notSignedIn.headers.getSetCookie(), [], 'no visit is trusted without a portal session');

  const client = await signIn(app, 'acme', 'dana@acme.com');
  for (const linkId of [forDana, forDomain]) {
    const opened = await client.get(`/p/acme/open/${linkId}`);
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.get('location'), `/v/${linkId}`);
    const visitCookie = opened.headers.getSetCookie()[0]!;
    assert.match(visitCookie, new RegExp(`^lv_visit=.*Path=/v/${linkId}(;|$)`));
    assert.match(visitCookie, /HttpOnly/);
    const page = await client.get(`/v/${linkId}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /class="document"/, 'straight to the document');
    assert.equal((await client.get(`/v/${linkId}/pages.json`)).status, 200);
  }
  const visit = await app.runtime.database.db
    .selectFrom('visits')
    .select(['email', 'otp_passed'])
    .where('link_id', '=', forDana)
    .executeTakeFirstOrThrow();
  assert.deepEqual(visit, { email: 'dana@acme.com', otp_passed: 1 });
  // The portal's code proved her address: the owner sees it as verified, as a link's own code would show it.
  const forDanaVisitors = (await owner.get(`/api/links/${forDana}/analytics`)).body.visitors as Array<{ visitor: string; emailVerified: boolean }>;
  assert.deepEqual(
    forDanaVisitors.map((visitor) => [visitor.visitor, visitor.emailVerified]),
    [['dana@acme.com', true]],
  );
  await client.get(`/p/acme/open/${withPassword}`);
  assert.match((await client.get(`/v/${withPassword}`)).text, /protected by a password/);
  assert.equal((await client.post(`/v/${withPassword}/password`, { password: 'open sesame' })).status, 303);
  assert.match((await client.get(`/v/${withPassword}`)).text, /class="document"/);
  const noOtpVisitors = (await owner.get(`/api/links/${withPassword}/analytics`)).body.visitors as Array<{ visitor: string; emailVerified: boolean }>;
  assert.deepEqual(
    noOtpVisitors.map((visitor) => [visitor.visitor, visitor.emailVerified]),
    [['dana@acme.com', true]],
    'on a link without an e-mail code of its own too',
  );

  const elsewhere = await client.get(`/p/acme/open/${forSomeoneElse}`);
  assert.equal(elsewhere.status, 303);
  const notPassed = await app.runtime.database.db
    .selectFrom('visits')
    .select(['email', 'otp_passed'])
    .where('link_id', '=', forSomeoneElse)
    .executeTakeFirstOrThrow();
  assert.deepEqual(notPassed, { email: 'dana@acme.com', otp_passed: 1 }, 'her address is proven');
  assert.match((await client.get(`/v/${forSomeoneElse}`)).text, /Send me a code/, 'but an OTP gate for other addresses is not passed with it');

  await client.get(`/p/acme/open/${withApproval}`);
  assert.match((await client.get(`/v/${withApproval}`)).text, /Request access/);
  await client.get(`/p/acme/open/${otpAndPassword}`);
  assert.match((await client.get(`/v/${otpAndPassword}`)).text, /protected by a password/, 'OTP passed, the password still asked');
  assert.equal((await client.post(`/v/${otpAndPassword}/password`, { password: 'pw' })).status, 303);
  assert.match((await client.get(`/v/${otpAndPassword}`)).text, /class="document"/);
});

test('a document opened again from the same portal session is the same view: clicks count once and spend the view cap once', async (t) => {
  const app = await startPortalApp(t);
  const { http: owner } = await app.createAccount('professional');
  const deck = await createLink(owner, 'deck', 'Deck.txt', { maxViews: '2' });
  await createPortal(owner, 'acme', ['dana@acme.com', 'eli@acme.com'], [deck]);
  const dana = await signIn(app, 'acme', 'dana@acme.com');
  for (let click = 0; click < 3; click++) {
    assert.equal((await dana.get(`/p/acme/open/${deck}`)).status, 303);
    assert.match((await dana.get(`/v/${deck}`)).text, /class="document"/);
  }
  assert.equal((await owner.get(`/api/links/${deck}`)).body.views, 1);

  // Another browser of hers is another portal session, and another view; then the cap is reached.
  const danaOnPhone = await signIn(app, 'acme', 'dana@acme.com');
  await danaOnPhone.get(`/p/acme/open/${deck}`);
  assert.match((await danaOnPhone.get(`/v/${deck}`)).text, /class="document"/);
  assert.equal((await owner.get(`/api/links/${deck}`)).body.views, 2);
  const eli = await signIn(app, 'acme', 'eli@acme.com');
  await eli.get(`/p/acme/open/${deck}`);
  assert.doesNotMatch((await eli.get(`/v/${deck}`)).text, /class="document"/, 'the cap is for people, not clicks');
});

test("block lists reach portals: the account's refuses an address its code and its session; a link's own refuses it that link", async (t) => {
  const app = await startPortalApp(t);
  const { http: owner } = await app.createAccount('professional');
  const open = await createLink(owner, 'open', 'Open.txt');
  const notForLee = await createLink(owner, 'not for lee', 'NotForLee.txt', { blockedEmails: 'lee@acme.com' });
  await createPortal(owner, 'acme', ['dana@acme.com', 'lee@acme.com', 'eve@corp.example'], [open, notForLee]);
  const dana = await signIn(app, 'acme', 'dana@acme.com');
  const lee = await signIn(app, 'acme', 'lee@acme.com');

  await lee.get(`/p/acme/open/${notForLee}`);
  const refused = await lee.get(`/v/${notForLee}`);
  assert.equal(refused.status, 403);
  assert.match(refused.text, /Access denied/);
  await lee.get(`/p/acme/open/${open}`);
  assert.match((await lee.get(`/v/${open}`)).text, /class="document"/);
  const visits = await app.runtime.database.db.selectFrom('visits').select(['link_id', 'email']).execute();
  const emailOf = Object.fromEntries(visits.map((visit) => [visit.link_id, visit.email]));
  assert.deepEqual(emailOf, { [notForLee]: 'lee@acme.com', [open]: 'lee@acme.com' }, 'the visit is the portal address: the owner sees who read it');

  assert.equal((await owner.put('/api/block-list', { emails: ['dana@acme.com'], domains: ['corp.example'] })).status, 200);
  const signedOut = await dana.get('/p/acme');
  assert.match(signedOut.text, /action="\/p\/acme\/email"/, 'a blocked address is signed out at once');
  assert.doesNotMatch(signedOut.text, new RegExp(`/p/acme/open/${open}`));
  const opened = await dana.get(`/p/acme/open/${open}`);
  assert.equal(opened.headers.get('location'), '/p/acme');
  assert.deepEqual(opened.headers.getSetCookie(), []);
  const eve = new VisitorClient(app.url);
  const noCode = await eve.post('/p/acme/email', { email: 'eve@corp.example' });
  assert.equal(noCode.status, 422);
  assert.match(noCode.text, /not allowed into this portal/, 'told what any address off the list is told');
  const codes = await app.runtime.database.db.selectFrom('otp_codes').select('email').where('email', '=', 'eve@corp.example').execute();
  assert.deepEqual(codes, []);
});

test('a session ends after 12 hours, when the owner removes the address, on sign-out, or with the portal', async (t) => {
  let now = Date.now();
  const app = await startPortalApp(t, () => now);
  const { http: owner } = await app.createAccount('professional');
  const portalId = await createPortal(owner, 'acme', ['dana@acme.com', 'lee@acme.com']);
  const signedIn = (page: { text: string }) => /Signed in as/.test(page.text);

  const dana = await signIn(app, 'acme', 'dana@acme.com');
  now += 12 * HOUR - 60_000;
  assert.ok(signedIn(await dana.get('/p/acme')));
  now += 120_000;
  assert.ok(!signedIn(await dana.get('/p/acme')), 'after 12 hours');

  const lee = await signIn(app, 'acme', 'lee@acme.com');
  assert.ok(signedIn(await lee.get('/p/acme')));
  await owner.patch(`/api/client-portals/${portalId}`, { allowedEmails: ['dana@acme.com'] });
  const removed = await lee.get('/p/acme');
  assert.ok(!signedIn(removed), 'an address the owner removed');
  assert.match(removed.text, /action="\/p\/acme\/email"/);

  const again = await signIn(app, 'acme', 'dana@acme.com');
  const signOut = await again.post('/p/acme/sign-out', {});
  assert.equal(signOut.status, 303);
  assert.match(signOut.headers.getSetCookie()[0]!, /^lv_portal=;.*Path=\/p\/acme/);
  assert.ok(!signedIn(await again.get('/p/acme')));
  assert.equal(
    await app.runtime.database.db
      .selectFrom('portal_sessions')
      .select('id')
      .where('email', '=', 'dana@acme.com')
      .where('expires_at', '>', now)
      .executeTakeFirst(),
    undefined,
  );

  const last = await signIn(app, 'acme', 'dana@acme.com');
  await owner.patch(`/api/client-portals/${portalId}`, { slug: 'acme-moved' });
  assert.equal((await last.get('/p/acme')).status, 404, 'the old address is gone');
  assert.ok(!signedIn(await last.get('/p/acme-moved')), 'the cookie belongs to the old path');
  await owner.delete(`/api/client-portals/${portalId}`);
  assert.equal((await last.get('/p/acme-moved')).status, 404);
  assert.deepEqual(await app.runtime.database.db.selectFrom('portal_sessions').select('id').execute(), [], 'sessions go with the portal');
});

test("the links' OTP rules: at most 3 codes per address per 10 minutes, 5 wrong tries burn a code", async (t) => {
  const app = await startPortalApp(t);
  const { http: owner } = await app.createAccount('professional');
  await createPortal(owner, 'acme', ['dana@acme.com']);
  const client = new VisitorClient(app.url);
  let code = '';
  for (let i = 0; i < 3; i++) {
    assert.equal((await client.post('/p/acme/email', { email: 'dana@acme.com' })).status, 303);
    code = await app.codeFor('dana@acme.com');
  }
  const throttled = await client.post('/p/acme/email', { email: 'dana@acme.com' });
  assert.equal(throttled.status, 429);
  assert.ok(Number(throttled.headers.get('retry-after')) > 0);
  assert.match(throttled.text, /Too many codes/);

  const wrong = code === '000000' ? '111111' : '000000';
  for (let i = 0; i < 4; i++) assert.equal((await client.post('/p/acme/verify', { code: wrong })).status, 422);
  assert.match((await client.post('/p/acme/verify', { code: wrong })).text, /Too many wrong codes/);
  assert.equal((await client.post('/p/acme/verify', { code })).status, 422, 'the right code no longer works');
});

test("on an account's verified custom domain only its own portals exist", async (t) => {
  const dns = await startDnsServer(t);
  const app = await startPortalApp(t, undefined, { DNS_SERVERS: dns.address });
  const alice = await app.createAccount('business');
  const bob = await app.createAccount('business');
  await claimVerifiedDomain(alice.http, dns, 'docs.alice.example');
  await createPortal(alice.http, 'alice-clients', ['a@b.com']);
  await createPortal(bob.http, 'bob-clients', ['a@b.com']);
  assert.equal((await alice.http.get('/api/client-portals')).body.portals[0].url, 'https://docs.alice.example/p/alice-clients');

  // fetch() will not send another Host: ask with node:http, as a reverse proxy would.
  const statusOnAlicesDomain = (path: string) =>
    new Promise<number>((resolve, reject) => {
      http
        .get(`${app.url}${path}`, { headers: { host: 'docs.alice.example' } }, (response) => {
          response.resume();
          resolve(response.statusCode!);
        })
        .on('error', reject);
    });
  assert.equal(await statusOnAlicesDomain('/p/alice-clients'), 200);
  assert.equal(await statusOnAlicesDomain('/p/bob-clients'), 404);
  assert.equal((await new VisitorClient(app.url).get('/p/bob-clients')).status, 200, 'PUBLIC_URL serves every account');

  // Nor the preview picture of another account's link.
  const picture = await sharp({ create: { width: 1200, height: 630, channels: 3, background: '#1d4ed8' } })
    .png()
    .toBuffer();
  const withPicture = async (owner: HttpClient) => {
    const linkId = await createLink(owner, 'x', 'Deck.txt');
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(picture)], { type: 'image/png' }), 'picture');
    assert.equal((await owner.put(`/api/links/${linkId}/preview-image`, form)).status, 200);
    return linkId;
  };
  const [alicesLink, bobsLink] = [await withPicture(alice.http), await withPicture(bob.http)];
  assert.equal(await statusOnAlicesDomain(`/v/${alicesLink}/preview.png`), 200);
  assert.equal(await statusOnAlicesDomain(`/v/${bobsLink}/preview.png`), 404);
});
