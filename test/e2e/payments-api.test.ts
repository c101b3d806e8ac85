import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import sharp from 'sharp';
import { startApp, type TestApp } from '../helpers/app.js';
import { createLink, sha256, uploadFile } from '../helpers/files.js';
import { otpCodeIn, startSmtp } from '../helpers/smtp.js';
import { sellerWithPaidLink, startAppWithStripe } from '../helpers/stripe-stand-in.js';
import { VisitorClient } from '../helpers/visitor.js';
import { waitFor } from '../helpers/wait.js';

const NOT_CONFIGURED = { error: 'payments are not configured' };

/** A visitor who opened the link, and the checkout session the viewer's form started for them. */
async function startCheckout(app: TestApp, linkId: string, email = 'buyer@example.net') {
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.get(`/v/${linkId}`)).status, 200);
  const response = await visitor.post(`/v/${linkId}/checkout`, { email });
  assert.equal(response.status, 303, response.text);
  const checkoutUrl = response.headers.get('location')!;
  return { visitor, checkoutUrl, sessionId: checkoutUrl.split('/').pop()! };
}

async function downloadWithSession(app: TestApp, linkId: string, sessionId: string) {
  const response = await fetch(`${app.url}/api/links/${linkId}/download-original?session_id=${encodeURIComponent(sessionId)}`);
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, body, json: () => JSON.parse(body.toString('utf8')) as { error: string } };
}

test('without STRIPE_SECRET_KEY every /api/stripe endpoint answers 503 and paid uploads 422', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const linkId = await createLink(http, 'free', 'free.txt');
  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${linkId}`);
  visitor.transplantCookie(`/v/${linkId}`, `/api/stripe/checkout-download/${linkId}`);

  for (const response of [
    await http.post('/api/stripe/connect'),
    await http.get('/api/stripe/connect-status'),
    await visitor
      .postJson(`/api/stripe/checkout-download/${linkId}`, { email: 'a@example.net' })
      .then((r) => ({ status: r.status, body: JSON.parse(r.text) })),
    await app.http().request('POST', '/api/stripe/webhook', { id: 'evt_1' }, { 'stripe-signature': 't=1,v1=00' }),
  ]) {
    assert.equal(response.status, 503);
    assert.deepEqual(response.body, NOT_CONFIGURED);
  }
  assert.equal((await app.http().post('/api/stripe/connect')).status, 401, 'the owner endpoints still need a key');

  // Outside /api/stripe, payments being off is no 503: a free link is not for sale, and a session proves nothing.
  const buying = await visitor.post(`/v/${linkId}/checkout`, { email: 'a@example.net' });
  assert.equal(buying.status, 422, buying.text);
  assert.match(buying.text, /not for sale/);
  const session = await downloadWithSession(app, linkId, 'cs_test_a1b2c3d4e5f6');
  const stranger = await downloadWithSession(app, 'A'.repeat(22), 'cs_test_a1b2c3d4e5f6');
  assert.deepEqual([session.status, session.json()], [403, stranger.json()], 'the same refusal whether the link exists or not');

  const paid = await uploadFile(http, 'x', 'x.txt', { requirePaymentToDownload: '1', downloadPrice: '1200', downloadCurrency: 'eur' });
  assert.equal(paid.status, 422);
  assert.match(paid.body.error, /payments are not configured/);
});

test('onboarding: one Express account per owner, a fresh onboarding link each time, and the pages Stripe returns to', async (t) => {
  const { app, stripe } = await startAppWithStripe(t);
  const owner = await app.createAccount('professional');

  const first = await owner.http.post('/api/stripe/connect');
  assert.equal(first.status, 200);
  assert.deepEqual(Object.keys(first.body), ['url']);
  assert.ok(first.body.url.startsWith(`${stripe.url}/express/onboarding/`));
  const second = await owner.http.post('/api/stripe/connect');
  assert.notEqual(second.body.url, first.body.url, 'each call gives a fresh link');
  assert.equal(stripe.accounts.size, 1, 'but only one connected account');
  const [account] = stripe.accounts.values();
  assert.equal(account!.type, 'express');
  assert.equal(account!.email, owner.email);
  const link = stripe.accountLinks.at(-1)!;
  assert.equal(link.type, 'account_onboarding');
  assert.equal(link.refresh_url, `${app.url}/stripe/refresh`);
  const returnUrl = new URL(link.return_url);
  assert.equal(`${returnUrl.origin}${returnUrl.pathname}`, `${app.url}/stripe/return`);
  assert.equal(returnUrl.searchParams.get('account'), account!.id);
  assert.match(returnUrl.searchParams.get('check') ?? '', /^[\w-]{43}$/);

  // The owner finishes Stripe's form and is sent back: the return page asks Stripe at once.
  const finished = await fetch(second.body.url, { method: 'POST', redirect: 'manual' });
  assert.equal(finished.status, 303);
  // Anyone else who names the account, without the check the real address carries, learns nothing.
  for (const forged of [`account=${account!.id}`, `account=${account!.id}&check=${'A'.repeat(43)}`]) {
    const page = await (await fetch(`${app.url}/stripe/return?${forged}`)).text();
    assert.match(page, /Back from Stripe/, forged);
    assert.doesNotMatch(page, /connected|not finished/, forged);
  }
  const returned = await fetch(finished.headers.get('location')!);
  assert.equal(returned.status, 200);
  assert.match(await returned.text(), /Your Stripe account is connected/);
  assert.deepEqual((await owner.http.get('/api/stripe/connect-status')).body, { connected: true, charges_enabled: true, account_id: account!.id });

  const expired = await fetch(`${app.url}/stripe/refresh`);
  assert.match(await expired.text(), /onboarding link has expired/);
  assert.match(expired.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.match(await (await fetch(`${app.url}/stripe/return?account=acct_unknown`)).text(), /Back from Stripe/);
});

test('connect-status before and after charges are enabled: cached for a minute, refreshed by account.updated', async (t) => {
  let now = Date.now();
  const { app, stripe } = await startAppWithStripe(t, { clock: () => now });
  const owner = await app.createAccount('professional');
  assert.deepEqual((await owner.http.get('/api/stripe/connect-status')).body, { connected: false, charges_enabled: null, account_id: null });

  await owner.http.post('/api/stripe/connect');
  const before = (await owner.http.get('/api/stripe/connect-status')).body;
  assert.equal(before.connected, true);
  assert.equal(before.charges_enabled, false);
  assert.match(before.account_id, /^acct_/);
  const paidFields = { requirePaymentToDownload: '1', downloadPrice: '1200', downloadCurrency: 'eur' };
  const refused = await uploadFile(owner.http, 'x', 'x.txt', paidFields);
  assert.equal(refused.status, 422);
  assert.match(refused.body.error, /charges/);

  stripe.setChargesEnabled(before.account_id, true);
  assert.equal((await owner.http.get('/api/stripe/connect-status')).body.charges_enabled, false, 'still the cached answer');
  now += 61_000;
  assert.equal((await owner.http.get('/api/stripe/connect-status')).body.charges_enabled, true, 'asked Stripe again after a minute');
  assert.equal((await uploadFile(owner.http, 'x', 'x.txt', paidFields)).status, 200);

  // Stripe disables charges and says so: the status follows at once, cache or not.
  const account = stripe.setChargesEnabled(before.account_id, false);
  assert.equal(await stripe.deliver(stripe.event('account.updated', structuredClone(account), account.id)), 200);
  assert.equal((await owner.http.get('/api/stripe/connect-status')).body.charges_enabled, false);
  assert.equal((await uploadFile(owner.http, 'x', 'x.txt', paidFields)).status, 422);
});

test('checkout needs a view session of the link; with one it is a destination charge with the platform fee', async (t) => {
  const { app, stripe } = await startAppWithStripe(t, { env: { PLATFORM_FEE_PERCENT: '10' } });
  const { linkId, stripeAccountId } = await sellerWithPaidLink(app, stripe, 'the original');
  const stranger = new VisitorClient(app.url);

  const api = await stranger.postJson(`/api/stripe/checkout-download/${linkId}`, { email: 'buyer@example.net' });
  assert.equal(api.status, 403);
  assert.match(JSON.parse(api.text).error, /Open the link/);
  assert.equal((await stranger.post(`/v/${linkId}/checkout`, { email: 'buyer@example.net' })).status, 403);
  assert.equal(stripe.sessions.size, 0);

  // The viewer page offers the purchase; its form posts beside the visit cookie.
  const page = await stranger.get(`/v/${linkId}`);
  assert.match(page.text, /Download the original — €12\.00/);
  assert.match(page.text, new RegExp(`action="/v/${linkId}/checkout"`));
  assert.doesNotMatch(page.text, /download>Download</, 'the file is not given away beside its price');
  assert.equal((await stranger.get(`/v/${linkId}/content`)).status, 403);

  // The JSON endpoint takes the session from the cookie when a client sends it there.
  stranger.transplantCookie(`/v/${linkId}`, `/api/stripe/checkout-download/${linkId}`);
  const started = await stranger.postJson(`/api/stripe/checkout-download/${linkId}`, { email: 'Buyer@Example.net' });
  assert.equal(started.status, 200, started.text);
  const { url } = JSON.parse(started.text);
  const session = [...stripe.sessions.values()][0]!;
  assert.equal(url, session.url);
  const request = stripe.checkoutRequests.get(session.id)!;
  assert.equal(request.mode, 'payment');
  assert.equal(request.customer_email, 'buyer@example.net');
  assert.deepEqual(request.line_items[0].price_data, { currency: 'eur', unit_amount: '1200', product_data: { name: 'report.dat' } });
  assert.deepEqual(request.payment_intent_data.transfer_data, { destination: stripeAccountId });
  assert.equal(request.payment_intent_data.application_fee_amount, '120');
  assert.deepEqual(
    request.metadata,
    { link_id: linkId, link_version: '1', price: '1200 eur' },
    'the price it is started at, which the payment is held to',
  );
  assert.equal(request.success_url, `${app.url}/v/${linkId}?session_id={CHECKOUT_SESSION_ID}`);
  const lifetime = Number(request.expires_at) - Date.now() / 1000;
  assert.ok(lifetime > 3500 && lifetime <= 3600, `payable for an hour, not Stripe's default day (${lifetime} s)`);

  const badEmail = await stranger.postJson(`/api/stripe/checkout-download/${linkId}`, { email: 'not an address' });
  assert.equal(badEmail.status, 400);
  const free = await createLink((await app.createAccount('professional')).http, 'free', 'free.txt');
  const freeVisitor = new VisitorClient(app.url);
  await freeVisitor.get(`/v/${free}`);
  assert.equal((await freeVisitor.post(`/v/${free}/checkout`, { email: 'a@example.net' })).status, 422, 'a free link is not for sale');
});

test('one client network starts at most 10 checkouts in 10 minutes, whatever the path: each is a call to Stripe on the platform key', async (t) => {
  const { app, stripe } = await startAppWithStripe(t);
  const { linkId } = await sellerWithPaidLink(app, stripe, 'the original');
  const visitor = new VisitorClient(app.url);
  assert.equal((await visitor.get(`/v/${linkId}`)).status, 200);
  const statuses: number[] = [];
  for (let n = 0; n < 11; n++) statuses.push((await visitor.post(`/v/${linkId}/checkout`, { email: `buyer${n}@example.net` })).status);
  assert.deepEqual(statuses, [...Array<number>(10).fill(303), 429]);
  visitor.transplantCookie(`/v/${linkId}`, `/api/stripe/checkout-download/${linkId}`);
  const api = await visitor.postJson(`/api/stripe/checkout-download/${linkId}`, { email: 'buyer@example.net' });
  assert.equal(api.status, 429);
  assert.match(JSON.parse(api.text).error, /Too many checkouts/);
  assert.equal(stripe.sessions.size, 10);
});

test("a paid session downloads the original 5 times; unpaid, unknown and other links' sessions are refused", async (t) => {
  const { app, stripe } = await startAppWithStripe(t);
  const content = randomBytes(200_000);
  const { linkId } = await sellerWithPaidLink(app, stripe, content, 'model.bin.txt');
  const { linkId: otherLinkId } = await sellerWithPaidLink(app, stripe, 'another document');

  const unpaid = await startCheckout(app, linkId);
  const refusal = await downloadWithSession(app, linkId, unpaid.sessionId);
  assert.equal(refusal.status, 403);
  assert.match(refusal.json().error, /paid checkout session/);
  assert.equal((await downloadWithSession(app, linkId, 'cs_test_doesnotexist')).status, 403);
  assert.equal((await downloadWithSession(app, linkId, '../v1/accounts')).status, 403);

  // Paid, but Stripe's webhook has not arrived: the first download asks Stripe itself.
  const paid = await startCheckout(app, linkId);
  await stripe.completeCheckout(paid.sessionId, { webhook: false });
  assert.equal((await downloadWithSession(app, otherLinkId, paid.sessionId)).status, 403, 'a session pays for its own link only');
  const other = await startCheckout(app, otherLinkId);
  await stripe.completeCheckout(other.sessionId);
  assert.equal((await downloadWithSession(app, linkId, other.sessionId)).status, 403, 'also once recorded');

  for (let n = 1; n <= 5; n++) {
    const download = await downloadWithSession(app, linkId, paid.sessionId);
    assert.equal(download.status, 200, `download ${n}`);
    assert.equal(sha256(download.body), sha256(content));
  }
  const sixth = await downloadWithSession(app, linkId, paid.sessionId);
  assert.equal(sixth.status, 403);
  assert.match(sixth.json().error, /paid checkout session/);

  const downloaded = await app.runtime.database.db
    .selectFrom('events')
    .select('payload')
    .where('link_id', '=', linkId)
    .where('type', '=', 'link.downloaded')
    .execute();
  assert.equal(downloaded.length, 5, 'each download is an event, the refused ones are not');
  assert.equal(JSON.parse(downloaded[0]!.payload).email, 'buyer@example.net');
});

test("a purchase's 5 downloads are one count for its session id and its receipt's token; a full refund or a dispute ends them, a partial refund does not", async (t) => {
  const smtp = await startSmtp(t);
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url } });
  const { linkId } = await sellerWithPaidLink(app, stripe, randomBytes(100));
  const buy = async (email: string) => {
    const { sessionId } = await startCheckout(app, linkId, email);
    const completed = await stripe.completeCheckout(sessionId);
    const receipt = await smtp.waitFor(email);
    const token = new URL(/(http\S+download-original\?token=\S+)/.exec(receipt.text)![1]!).searchParams.get('token')!;
    return { sessionId, token, paymentIntent: completed.data.object.payment_intent as string };
  };
  const withToken = async (token: string) =>
    (await fetch(`${app.url}/api/links/${linkId}/download-original?token=${encodeURIComponent(token)}`)).status;

  const first = await buy('pool@example.net');
  const statuses: number[] = [];
  for (let n = 0; n < 3; n++) statuses.push((await downloadWithSession(app, linkId, first.sessionId)).status);
  for (let n = 0; n < 3; n++) statuses.push(await withToken(first.token));
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 403], 'five in all');

  const refundOf = (paymentIntent: string, refunded: boolean) =>
    stripe.event('charge.refunded', {
      id: `ch_${paymentIntent}`,
      object: 'charge',
      amount: 1200,
      amount_refunded: refunded ? 1200 : 200,
      refunded,
      payment_intent: paymentIntent,
    });
  const partly = await buy('partly@example.net');
  assert.equal(await stripe.deliver(refundOf(partly.paymentIntent, false)), 200);
  assert.equal(await withToken(partly.token), 200, 'a partial refund leaves the purchase');
  assert.equal(await stripe.deliver(refundOf(partly.paymentIntent, true)), 200);
  assert.equal(await withToken(partly.token), 403, 'refunded in full: the token ends');
  assert.equal((await downloadWithSession(app, linkId, partly.sessionId)).status, 403, 'and the session id');

  const disputed = await buy('disputed@example.net');
  const dispute = stripe.event('charge.dispute.created', { id: 'dp_1', object: 'dispute', amount: 1200, payment_intent: disputed.paymentIntent });
  assert.equal(await stripe.deliver(dispute), 200);
  assert.equal(await withToken(disputed.token), 403);
  assert.equal((await downloadWithSession(app, linkId, disputed.sessionId)).status, 403);
  assert.equal(await withToken(first.token), 403, 'still spent');
});

test('the completed webhook records one purchase and sends one receipt, however often it is delivered', async (t) => {
  const smtp = await startSmtp(t);
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url } });
  const content = randomBytes(3000);
  const { owner, linkId } = await sellerWithPaidLink(app, stripe, content);
  const { sessionId } = await startCheckout(app, linkId, 'receipt@example.net');

  // Stripe may deliver an event more than once, even at the same time.
  const completed = await stripe.completeCheckout(sessionId, { webhook: false });
  assert.deepEqual(await Promise.all([stripe.deliver(completed), stripe.deliver(completed), stripe.deliver(completed)]), [200, 200, 200]);
  assert.equal(await stripe.replay(completed), 200, 'a later replay is acknowledged too');

  const mail = await smtp.waitFor('receipt@example.net');
  assert.match(mail.subject, /receipt/i);
  assert.match(mail.text, /€12\.00/);
  await app.runtime.mailer.drain();
  assert.equal(smtp.received.filter((m) => m.to.includes('receipt@example.net')).length, 1, 'one e-mail');
  // The seller hears of it once: the link was made with a key, so at the account's address.
  const sale = await smtp.waitFor(owner.email, (m) => m.subject.includes('was bought'));
  assert.equal(sale.subject, '“report.dat” was bought for €12.00');
  assert.match(sale.text, /receipt@example\.net/);
  assert.ok(sale.text.includes(`${app.runtime.config.publicUrl}/app/documents/${linkId}/analytics`));
  assert.equal(smtp.received.filter((m) => m.to.includes(owner.email) && m.subject.includes('was bought')).length, 1, 'one sale e-mail');
  const db = app.runtime.database.db;
  const purchases = await db.selectFrom('purchases').selectAll().where('link_id', '=', linkId).execute();
  assert.equal(purchases.length, 1, 'one purchase');
  assert.equal(purchases[0]!.checkout_session_hash, sha256(Buffer.from(sessionId)));
  assert.ok(!JSON.stringify(purchases).includes(sessionId), 'the session id, which downloads the purchase, is kept only as its hash');
  assert.equal(purchases[0]!.amount, 1200);
  assert.equal((await db.selectFrom('download_tokens').select('id').where('link_id', '=', linkId).execute()).length, 1, 'one token');
  const emitted = await db
    .selectFrom('events')
    .select(['type', 'payload'])
    .where('link_id', '=', linkId)
    .where('type', '=', 'purchase.completed')
    .execute();
  assert.equal(emitted.length, 1, 'one purchase.completed event');
  assert.deepEqual(JSON.parse(emitted[0]!.payload), { linkName: 'report.dat', email: 'receipt@example.net', amount: 1200, currency: 'eur' });

  // The receipt's link is the buyer's own download token.
  const downloadUrl = /(http\S+download-original\?token=\S+)/.exec(mail.text)![1]!;
  assert.ok(downloadUrl.startsWith(`${app.url}/api/links/${linkId}/`));
  const token = new URL(downloadUrl).searchParams.get('token')!;
  const outbox = await waitFor(
    () => db.selectFrom('mail_outbox').selectAll().where('to_address', '=', 'receipt@example.net').execute(),
    (rows) => rows.every((row) => row.status === 'sent'),
  );
  assert.ok(!JSON.stringify(outbox).includes(token), 'the receipt left no download token in the outbox');
  assert.equal((await downloadWithSession(app, linkId, sessionId)).status, 200, 'the session id still downloads, found by its hash');
  const download = await fetch(downloadUrl);
  assert.equal(download.status, 200);
  assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(content));
});

test("one checkout is fulfilled once: by a second paid event of the session too, and after the buyer's first download recorded it", async (t) => {
  const smtp = await startSmtp(t);
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url } });
  const { linkId } = await sellerWithPaidLink(app, stripe, randomBytes(100));
  const db = app.runtime.database.db;
  const fulfilled = async (email: string) => {
    await app.runtime.mailer.drain();
    const tokens = await db.selectFrom('download_tokens').select('id').where('link_id', '=', linkId).execute();
    const events = await db.selectFrom('events').select('payload').where('link_id', '=', linkId).where('type', '=', 'purchase.completed').execute();
    return {
      receipts: smtp.received.filter((mail) => mail.to.includes(email)).length,
      tokens: tokens.length,
      events: events.filter((event) => event.payload.includes(email)).length,
    };
  };

  // Checkout says "completed", then (as for a payment that settles later) "async_payment_succeeded".
  const twice = await startCheckout(app, linkId, 'twice@example.net');
  const completed = await stripe.completeCheckout(twice.sessionId, { webhook: false });
  const succeeded = stripe.event('checkout.session.async_payment_succeeded', structuredClone(completed.data.object));
  assert.equal(await stripe.deliver(completed), 200);
  assert.equal(await stripe.deliver(succeeded), 200);
  await smtp.waitFor('twice@example.net');
  assert.deepEqual(await fulfilled('twice@example.net'), { receipts: 1, tokens: 1, events: 1 });

  // The buyer downloads on return, before the webhook: the download records the purchase, the webhook still fulfils it.
  const early = await startCheckout(app, linkId, 'early@example.net');
  const paid = await stripe.completeCheckout(early.sessionId, { webhook: false });
  assert.equal((await downloadWithSession(app, linkId, early.sessionId)).status, 200);
  assert.equal(await stripe.deliver(paid), 200);
  await smtp.waitFor('early@example.net');
  assert.deepEqual(await fulfilled('early@example.net'), { receipts: 1, tokens: 2, events: 1 });
  assert.equal((await db.selectFrom('purchases').select('id').where('link_id', '=', linkId).execute()).length, 2);
});

test('a session paid at another amount or currency than its checkout was started at is acknowledged and not fulfilled', async (t) => {
  const smtp = await startSmtp(t);
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url } });
  const { linkId } = await sellerWithPaidLink(app, stripe, randomBytes(100)); // €12.00
  const db = app.runtime.database.db;
  for (const [index, paid] of [
    { amount_total: 50, currency: 'eur' },
    { amount_total: 1200, currency: 'usd' },
  ].entries()) {
    const email = `cheap-${index}@example.net`;
    const { sessionId } = await startCheckout(app, linkId, email);
    const completed = await stripe.completeCheckout(sessionId, { webhook: false });
    const session = completed.data.object;
    assert.equal(session.metadata.price, '1200 eur', 'the checkout names the price it was started at');
    assert.equal(await stripe.deliver(stripe.event('checkout.session.completed', { ...structuredClone(session), ...paid })), 200);
  }
  await app.runtime.mailer.drain();
  assert.deepEqual(await db.selectFrom('purchases').select('id').where('link_id', '=', linkId).execute(), [], 'no purchase');
  assert.deepEqual(
    smtp.received.filter((mail) => mail.to.some((to) => to.startsWith('cheap-'))),
    [],
    'no receipt',
  );
  assert.deepEqual(await db.selectFrom('mail_outbox').select('id').where('to_address', 'like', 'cheap-%').execute(), [], 'none queued');
  assert.deepEqual(await db.selectFrom('download_tokens').select('id').where('link_id', '=', linkId).execute(), [], 'no token');
});

test('a webhook whose signature does not match is refused with 400 and changes nothing', async (t) => {
  const { app, stripe } = await startAppWithStripe(t);
  const { linkId } = await sellerWithPaidLink(app, stripe, 'x');
  const { sessionId } = await startCheckout(app, linkId);
  const completed = await stripe.completeCheckout(sessionId, { webhook: false });

  assert.equal(await stripe.deliver(completed, { secret: 'whsec_forged' }), 400);
  assert.equal(await stripe.deliver(completed, { tamper: (payload) => payload.replace('"paid"', '"paid" ') }), 400);
  const unsigned = await fetch(`${app.url}/api/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(completed),
  });
  assert.equal(unsigned.status, 400);
  assert.match(((await unsigned.json()) as { error: string }).error, /Stripe-Signature/);
  const db = app.runtime.database.db;
  assert.equal((await db.selectFrom('stripe_events').select('event_id').execute()).length, 0);
  assert.equal((await db.selectFrom('purchases').select('id').execute()).length, 0);

  assert.equal(await stripe.deliver(completed), 200, 'the genuine delivery still counts');
  assert.equal((await db.selectFrom('purchases').select('id').execute()).length, 1);
});

test("a checkout of a seller's own Stripe account, naming another account's link, buys nothing", async (t) => {
  const smtp = await startSmtp(t);
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url } });
  const { linkId } = await sellerWithPaidLink(app, stripe, 'the report');
  const seller = await sellerWithPaidLink(app, stripe, 'another report');
  // A session the second seller made on their own (a Standard) account, paid with 50 cents, as
  // Stripe's Connect endpoint would send it, signed with the platform's secret.
  const forged = stripe.event(
    'checkout.session.completed',
    {
      id: 'cs_test_sellers_own',
      object: 'checkout.session',
      payment_status: 'paid',
      amount_total: 50,
      currency: 'eur',
      customer_email: 'seller@example.net',
      customer_details: { email: 'seller@example.net' },
      metadata: { link_id: linkId, link_version: '1' },
    },
    seller.stripeAccountId,
  );
  assert.equal(await stripe.deliver(forged), 200, 'acknowledged, so Stripe stops retrying');
  const db = app.runtime.database.db;
  assert.deepEqual(await db.selectFrom('purchases').select('id').execute(), []);
  assert.deepEqual(await db.selectFrom('download_tokens').select('id').where('link_id', '=', linkId).execute(), []);
  await app.runtime.mailer.drain();
  assert.equal(smtp.received.length, 0, 'no receipt');
  assert.equal((await downloadWithSession(app, linkId, 'cs_test_sellers_own')).status, 403);
});

test('the purchase form is prefilled with the e-mail the visitor proved at the gate', async (t) => {
  const smtp = await startSmtp(t);
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url } });
  const { linkId } = await sellerWithPaidLink(app, stripe, 'x', 'x.txt', { requiresOtp: '1', allowedDomains: 'example.org' });
  const visitor = new VisitorClient(app.url);
  await visitor.post(`/v/${linkId}/otp`, { email: 'dana@example.org' });
  await visitor.post(`/v/${linkId}/otp/verify`, { code: otpCodeIn(await smtp.waitFor('dana@example.org')) });
  const page = await visitor.get(`/v/${linkId}`);
  assert.match(page.text, /Download the original — €12\.00/);
  assert.match(page.text, /name="email"[^>]*value="dana@example\.org"/);
});

test("a paid link inside a data room is bought within the room's session and returns there; its receipt names the room's path", async (t) => {
  const smtp = await startSmtp(t);
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url } });
  const { owner, linkId } = await sellerWithPaidLink(app, stripe, 'the original');
  const room = (await owner.http.post('/api/links/room', { name: 'Deal room', children_ids: [linkId] })).body.id;
  const visitor = new VisitorClient(app.url);
  const roomPage = (await visitor.get(`/v/${room}`)).text;
  const child = new RegExp(`href="(/v/${room}/d/[0-9a-f]{32})"`).exec(roomPage)![1]!;
  assert.ok(!roomPage.includes(linkId), "the room names its link by a name of its own, not the link's id");
  assert.match((await visitor.get(child)).text, new RegExp(`action="${child}/checkout"`));
  assert.equal((await visitor.get(`${child}/content`)).status, 403, 'not given away inside a room either');

  const started = await visitor.post(`${child}/checkout`, { email: 'buyer@example.net' });
  assert.equal(started.status, 303);
  const sessionId = started.headers.get('location')!.split('/').pop()!;
  assert.equal(stripe.checkoutRequests.get(sessionId)!.success_url, `${app.url}${child}?session_id={CHECKOUT_SESSION_ID}`);
  const guessed = await visitor.get(`${child}?session_id=cs_test_${'a'.repeat(24)}`);
  assert.ok(!guessed.text.includes(linkId), "an unpaid session id in the address does not show the link's id either");
  await stripe.completeCheckout(sessionId);
  const back = await visitor.get(`${child}?session_id=${sessionId}`);
  assert.ok(!back.text.includes(linkId), "nor does the page after the purchase: its download is on the room's path");
  const download = new RegExp(`href="(${child}/download-original\\?session_id=${sessionId})"`).exec(back.text)![1]!;
  assert.equal((await visitor.get(download)).text, 'the original');
  assert.equal(
    (await fetch(`${app.url}${child}/download-original?session_id=cs_test_${'b'.repeat(24)}`)).status,
    403,
    'an unpaid session gets nothing',
  );
  assert.equal((await downloadWithSession(app, linkId, sessionId)).body.toString(), 'the original', "the API's path, by the link's id, too");

  // The receipt's link downloads from the room's path: the buyer, or whoever the mail reaches, never learns the link's id.
  const receipt = await smtp.waitFor('buyer@example.net');
  assert.ok(!receipt.text.includes(linkId) && !String(receipt.html).includes(linkId), "the receipt does not name the link's own id");
  const receiptUrl = /(http\S+download-original\?token=\S+)/.exec(receipt.text)![1]!;
  assert.ok(receiptUrl.startsWith(`${app.url}${child}/download-original?token=`), receiptUrl);
  const fromReceipt = await fetch(receiptUrl);
  assert.equal(fromReceipt.status, 200);
  assert.equal(await fromReceipt.text(), 'the original');
});

test("a buyer keeps the original after the owner deactivates the link or it expires; an owner's token does not", async (t) => {
  const smtp = await startSmtp(t);
  let now = Date.now();
  const { app, stripe } = await startAppWithStripe(t, { env: { SMTP_URL: smtp.url }, clock: () => now });
  const content = randomBytes(2048);
  const { owner, linkId } = await sellerWithPaidLink(app, stripe, content, 'report.dat', { expiration: '24h' });
  const ownerToken = (await owner.http.post(`/api/links/${linkId}/download-tokens`, { uses: 10, ttlSeconds: 7 * 86_400 })).body.token as string;
  const { sessionId } = await startCheckout(app, linkId, 'keeper@example.net');
  await stripe.completeCheckout(sessionId);
  const receiptUrl = /(http\S+download-original\?token=\S+)/.exec((await smtp.waitFor('keeper@example.net')).text)![1]!;

  assert.equal((await owner.http.patch(`/api/links/${linkId}/active`, { isActive: false })).status, 200);
  assert.equal((await fetch(`${app.url}/api/links/${linkId}/download-original?token=${ownerToken}`)).status, 403);
  const byReceipt = await fetch(receiptUrl);
  assert.equal(byReceipt.status, 200, 'the receipt link still works');
  assert.equal(sha256(Buffer.from(await byReceipt.arrayBuffer())), sha256(content));
  assert.equal((await downloadWithSession(app, linkId, sessionId)).status, 200, 'the paid session still works');

  now += 25 * 3_600_000;
  assert.equal((await fetch(`${app.url}/api/links/${linkId}/download-original?token=${ownerToken}`)).status, 410);
  assert.equal((await fetch(receiptUrl)).status, 200, 'expired but not yet deleted: the buyer still downloads');
});

test('a sold picture is shown smaller than the original, and a sold recording is not played: the original is what is bought', async (t) => {
  const { app, stripe } = await startAppWithStripe(t);
  const photo = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#2a6f4e' } })
    .jpeg()
    .toBuffer();
  const { linkId: pictureId } = await sellerWithPaidLink(app, stripe, photo, 'harbour.jpg');
  const visitor = new VisitorClient(app.url);
  const page = await visitor.get(`/v/${pictureId}`);
  assert.match(page.text, /Download the original — €12\.00/);
  const shown = await visitor.get(`/v/${pictureId}/content`);
  assert.equal(shown.status, 200);
  assert.equal(shown.headers.get('content-type'), 'image/jpeg');
  assert.notEqual(sha256(shown.bytes), sha256(photo), 'not the original');
  const { width, height } = await sharp(shown.bytes).metadata();
  assert.deepEqual([width, height], [1024, 683], 'at most 1024 px on its longer side');

  const { linkId: filmId } = await sellerWithPaidLink(app, stripe, randomBytes(4096), 'film.mp4');
  const filmPage = await visitor.get(`/v/${filmId}`);
  assert.match(filmPage.text, /Download the original — €12\.00/);
  assert.ok(!filmPage.text.includes('<video'), 'no player');
  assert.equal((await visitor.get(`/v/${filmId}/content`)).status, 403, 'nor any stream of it');
});
