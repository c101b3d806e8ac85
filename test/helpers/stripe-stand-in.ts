import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import Stripe from 'stripe';
import { startApp, type TestApp } from './app.js';
import { createLink } from './files.js';
import { onFreePort } from './ports.js';

/**
 * A local stand-in for the few Stripe endpoints linkvault calls through the official SDK
 * (accounts, account links, checkout sessions), answering with Stripe's documented shapes,
 * plus the pages Stripe would show: Express onboarding and Checkout. Paying on the checkout
 * page fires a `checkout.session.completed` webhook at the app, signed by the SDK's own
 * test-header helper, then redirects to the session's success_url.
 */

type StripeObject = Record<string, any>;

export interface Delivery {
  event: StripeObject;
  status: number;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

/** Stripe's form encoding with bracket notation (`a[b][0][c]=v`) back into objects and arrays. */
export function parseStripeForm(body: string): StripeObject {
  const out: StripeObject = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: any = out;
    path.forEach((part, index) => {
      if (index === path.length - 1) node[part] = value;
      else node = node[part] ??= /^\d+$/.test(path[index + 1]!) ? [] : {};
    });
  }
  return out;
}

const stripeError = (status: number, message: string, extra: StripeObject = {}) => ({
  status,
  body: { error: { type: 'invalid_request_error', message, ...extra } },
});

export async function startStripeStandIn(t: TestContext) {
  const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const accounts = new Map<string, StripeObject>();
  const accountLinks: StripeObject[] = [];
  const sessions = new Map<string, StripeObject>();
  /** What the app asked for when creating each session (payment_intent_data is not echoed back by Stripe). */
  const checkoutRequests = new Map<string, StripeObject>();
  const deliveries: Delivery[] = [];
  let webhookUrl: string | undefined;
  let baseUrl = '';

  function event(type: string, object: StripeObject, account?: string): StripeObject {
    return {
      id: id('evt'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: now(),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      ...(account && { account }),
    };
  }

  /** Posts an event to the app, signed with `secret` (the app's by default). Returns the app's status. */
  async function deliver(evt: StripeObject, options: { secret?: string; tamper?: (payload: string) => string } = {}): Promise<number> {
    if (!webhookUrl) throw new Error('stand-in: call deliverTo(url) first');
    const payload = JSON.stringify(evt);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? webhookSecret });
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signature,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: options.tamper ? options.tamper(payload) : payload,
    });
    await response.arrayBuffer();
    deliveries.push({ event: evt, status: response.status });
    return response.status;
  }

  function setChargesEnabled(accountId: string, enabled: boolean): StripeObject {
    const account = accounts.get(accountId);
    if (!account) throw new Error(`stand-in: no account ${accountId}`);
    Object.assign(account, {
      charges_enabled: enabled,
      payouts_enabled: enabled,
      details_submitted: enabled,
      capabilities: { card_payments: enabled ? 'active' : 'inactive', transfers: enabled ? 'active' : 'inactive' },
    });
    return account;
  }

  /** Marks the session paid as Checkout does, and (unless told not to) sends the completed event. */
  async function completeCheckout(sessionId: string, options: { webhook?: boolean } = {}): Promise<StripeObject> {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`stand-in: no session ${sessionId}`);
    Object.assign(session, {
      status: 'complete',
      payment_status: 'paid',
      payment_intent: id('pi'),
      customer_details: { email: session.customer_email, name: null, phone: null, address: null, tax_exempt: 'none', tax_ids: [] },
    });
    const completed = event('checkout.session.completed', structuredClone(session));
    if (options.webhook !== false) await deliver(completed);
    return completed;
  }

  type Answer = { status: number; body: unknown } | { status: number; html: string } | { status: number; location: string };

  function api(method: string, path: string, params: StripeObject): Answer {
    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/accounts') {
      const account = {
        id: id('acct'),
        object: 'account',
        type: params.type ?? 'standard',
        business_type: null,
        capabilities: { card_payments: 'inactive', transfers: 'inactive' },
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        country: 'US',
        created: now(),
        default_currency: 'usd',
        email: params.email ?? null,
        metadata: params.metadata ?? {},
        requirements: { currently_due: ['external_account', 'tos_acceptance.date'], disabled_reason: 'requirements.past_due' },
        settings: {},
      };
      accounts.set(account.id, account);
      return { status: 200, body: account };
    }
    if (method === 'GET' && (match = /^\/v1\/accounts\/([^/]+)$/.exec(path))) {
      const account = accounts.get(decodeURIComponent(match[1]!));
      return account
        ? { status: 200, body: account }
        : stripeError(404, `No such account: '${match[1]}'`, { code: 'resource_missing', param: 'account' });
    }
    if (method === 'POST' && path === '/v1/account_links') {
      if (!accounts.has(params.account))
        return stripeError(400, `No such account: '${params.account}'`, { code: 'resource_missing', param: 'account' });
      for (const field of ['refresh_url', 'return_url', 'type']) {
        if (!params[field]) return stripeError(400, `Missing required param: ${field}.`, { code: 'parameter_missing', param: field });
      }
      const link = { object: 'account_link', created: now(), expires_at: now() + 300, url: `${baseUrl}/express/onboarding/${id('al')}` };
      accountLinks.push({ ...link, account: params.account, refresh_url: params.refresh_url, return_url: params.return_url, type: params.type });
      return { status: 200, body: link };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      for (const field of ['mode', 'line_items', 'success_url']) {
        if (!params[field]) return stripeError(400, `Missing required param: ${field}.`, { code: 'parameter_missing', param: field });
      }
      const destination = params.payment_intent_data?.transfer_data?.destination;
      if (destination && !accounts.get(destination)?.charges_enabled) {
        return stripeError(400, `The destination account ${destination} cannot accept charges.`, {
          param: 'payment_intent_data[transfer_data][destination]',
        });
      }
      const item = params.line_items[0];
      const amount = Number(item.price_data.unit_amount) * Number(item.quantity ?? 1);
      const sessionId = `cs_test_${randomBytes(16).toString('hex')}`;
      const session = {
        id: sessionId,
        object: 'checkout.session',
        amount_subtotal: amount,
        amount_total: amount,
        cancel_url: params.cancel_url ?? null,
        client_reference_id: null,
        created: now(),
        currency: item.price_data.currency,
        customer: null,
        customer_details: null,
        customer_email: params.customer_email ?? null,
        // Stripe's default is a day; a caller may ask for 30 minutes to 24 hours.
        expires_at: params.expires_at ? Number(params.expires_at) : now() + 86_400,
        livemode: false,
        metadata: params.metadata ?? {},
        mode: params.mode,
        payment_intent: null,
        payment_status: 'unpaid',
        status: 'open',
        success_url: params.success_url,
        url: `${baseUrl}/c/pay/${sessionId}`,
      };
      sessions.set(sessionId, session);
      checkoutRequests.set(sessionId, params);
      return { status: 200, body: session };
    }
    if (method === 'GET' && (match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      const session = sessions.get(decodeURIComponent(match[1]!));
      return session
        ? { status: 200, body: session }
        : stripeError(404, `No such checkout.session: '${match[1]}'`, { code: 'resource_missing', param: 'session' });
    }
    return stripeError(404, `Unrecognized request URL (${method}: ${path}).`);
  }

  async function page(method: string, path: string): Promise<Answer> {
    let match: RegExpExecArray | null;
    if ((match = /^\/express\/onboarding\/([^/]+)$/.exec(path))) {
      const link = accountLinks.find((candidate) => candidate.url.endsWith(`/${match![1]}`));
      if (!link) return { status: 404, html: '<p>No such onboarding link</p>' };
      if (method === 'GET') {
        return { status: 200, html: `<h1>Set up payments</h1><form method="post"><button type="submit">Finish onboarding</button></form>` };
      }
      setChargesEnabled(link.account, true);
      return { status: 303, location: link.return_url };
    }
    if ((match = /^\/c\/pay\/([^/]+)$/.exec(path))) {
      const session = sessions.get(match[1]!);
      if (!session) return { status: 404, html: '<p>No such checkout session</p>' };
      if (method === 'GET') {
        const price = `${(session.amount_total / 100).toFixed(2)} ${String(session.currency).toUpperCase()}`;
        return {
          status: 200,
          html: `<h1>Checkout</h1><p>${price} · ${session.customer_email}</p><form method="post"><button type="submit">Pay</button></form>`,
        };
      }
      await completeCheckout(session.id);
      return { status: 303, location: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', session.id) };
    }
    return { status: 404, html: '<p>Not found</p>' };
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const url = new URL(request.url ?? '/', baseUrl);
      const method = request.method ?? 'GET';
      const body = Buffer.concat(chunks).toString('utf8');
      let answer: Answer;
      if (url.pathname.startsWith('/v1/')) {
        answer =
          request.headers.authorization !== `Bearer ${secretKey}`
            ? stripeError(401, 'Invalid API Key provided')
            : api(method, url.pathname, parseStripeForm(method === 'GET' ? url.search.slice(1) : body));
      } else {
        answer = await page(method, url.pathname).catch((error: Error) => ({ status: 500, html: `<p>${error.message}</p>` }));
      }
      if ('location' in answer) response.writeHead(answer.status, { location: answer.location }).end();
      else if ('html' in answer)
        response
          .writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><title>Stripe stand-in</title>${answer.html}`);
      // Stripe's own header telling the SDK whether to retry: the stand-in's answers are final, so
      // a test that provokes an error waits for no SDK retries (with backoff) before it sees it.
      else
        response
          .writeHead(answer.status, { 'content-type': 'application/json', 'request-id': id('req'), 'stripe-should-retry': 'false' })
          .end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the SDK keeps connections alive
      }),
  );

  return {
    url: baseUrl,
    secretKey,
    webhookSecret,
    /** The environment that points linkvault at this stand-in. */
    env: { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_BASE: baseUrl },
    accounts,
    accountLinks,
    sessions,
    checkoutRequests,
    deliveries,
    /** Where webhooks go: the app's /api/stripe/webhook. */
    deliverTo(url: string) {
      webhookUrl = url;
    },
    setChargesEnabled,
    completeCheckout,
    deliver,
    event,
    /** Sends the same event again, as Stripe does when it retries. */
    replay: (evt: StripeObject) => deliver(evt),
  };
}

export type StripeStandIn = Awaited<ReturnType<typeof startStripeStandIn>>;

/**
 * The app wired to a fresh stand-in, on a port known in advance so that PUBLIC_URL (which
 * Stripe's redirects and the receipts point at) is the app's real address.
 */
export async function startAppWithStripe(t: TestContext, options: { env?: Record<string, string>; clock?: () => number } = {}) {
  const stripe = await startStripeStandIn(t);
  const app = await onFreePort((port) =>
    startApp(t, {
      env: { ...stripe.env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...options.env },
      clock: options.clock,
    }),
  );
  stripe.deliverTo(`${app.url}/api/stripe/webhook`);
  return { app, stripe };
}

/** An owner whose Stripe account is onboarded and can charge, selling `content` at €12.00. */
export async function sellerWithPaidLink(
  app: TestApp,
  stripe: StripeStandIn,
  content: Buffer | string,
  // A type shown as nothing but a download: the file itself is what is sold.
  fileName = 'report.dat',
  fields: Record<string, string> = {},
) {
  const owner = await app.createAccount('professional');
  await owner.http.post('/api/stripe/connect');
  const { account_id: stripeAccountId } = (await owner.http.get('/api/stripe/connect-status')).body;
  stripe.setChargesEnabled(stripeAccountId, true);
  const linkId = await createLink(owner.http, content, fileName, {
    requirePaymentToDownload: '1',
    downloadPrice: '1200',
    downloadCurrency: 'eur',
    ...fields,
  });
  return { owner, stripeAccountId: stripeAccountId as string, linkId };
}
