import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import { badRequest, serviceUnavailable } from '../../core/errors.js';
import type { DownloadsService } from '../downloads/downloads.service.js';
import type { EventRecorder } from '../events/events.service.js';
import type { LinksService } from '../links/links.service.js';
import type { ViewAlertsService } from '../view-alerts/view-alerts.service.js';
import { paidAsPriced, PURCHASE_DOWNLOADS, PURCHASE_WINDOW_MS, purchaseOf, receiptDownloadPath } from './checkout.service.js';
import type { StripeConnect } from './connect.service.js';
import { claimStripeEvent, endPurchasesPaidBy, insertPurchase, markPurchaseFulfilled } from './payments.repo.js';
import { requireStripe, type Stripe } from './stripe-client.js';

export interface PurchaseReceipt {
  email: string;
  amount: number;
  currency: string;
  downloadUrl: string;
  downloads: number;
  expiresAt: number;
}

/** The buyer's receipt, queued in the caller's transaction: every read it makes goes through `db` too (SQLite has one connection). */
export interface PurchaseNotifier {
  purchaseReceipt(link: LinkRow, receipt: PurchaseReceipt, db: Executor): Promise<void>;
  /** `to`: who hears of the link's visitors. */
  saleMade(link: LinkRow, sale: { email: string; amount: number; currency: string }, to: string, db: Executor): Promise<void>;
}

/** Stripe's webhook: verified against the raw body, each event acted on exactly once. */
export function createStripeWebhook(deps: {
  db: Db;
  clock: Clock;
  stripe: Stripe | null;
  /** STRIPE_WEBHOOK_SECRET; two endpoints (platform and Connect events) may each have their own, comma-separated. */
  webhookSecret: string | undefined;
  publicUrl: string;
  links: Pick<LinksService, 'findForVisitor'>;
  downloads: Pick<DownloadsService, 'issuePurchaseToken'>;
  sellers: Pick<StripeConnect, 'applyAccountUpdate'>;
  notify: PurchaseNotifier;
  viewAlerts: Pick<ViewAlertsService, 'recipientOf'>;
  events: EventRecorder;
  log: { error(obj: object, msg?: string): void; info(obj: object, msg?: string): void };
}) {
  const { db, clock, stripe, publicUrl, links, downloads, sellers, notify, viewAlerts, events, log } = deps;
  const secrets = (deps.webhookSecret ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);

  function verify(rawBody: Buffer | undefined, signature: string | string[] | undefined): Stripe.Event {
    const client = requireStripe(stripe);
    if (secrets.length === 0) throw serviceUnavailable('The Stripe webhook is not configured: STRIPE_WEBHOOK_SECRET is not set');
    if (!rawBody?.length || typeof signature !== 'string') throw badRequest('A Stripe-Signature header and the event body are required');
    for (const secret of secrets) {
      try {
        return client.webhooks.constructEvent(rawBody, signature, secret);
      } catch {
        // a bad signature for this secret: try the next one
      }
    }
    throw badRequest('The Stripe-Signature header does not match the event body');
  }

  /** Runs `act` in one transaction with the claim of the event id: a replay finds it claimed and does nothing. */
  async function once(event: Stripe.Event, act: (trx: Executor) => Promise<void>): Promise<void> {
    await db.transaction().execute(async (trx) => {
      if (await claimStripeEvent(trx, { id: event.id, type: event.type, now: clock() })) await act(trx);
    });
  }

  async function completePurchase(event: Stripe.Event, session: Stripe.Checkout.Session): Promise<void> {
    const now = clock();
    const purchase = purchaseOf(session, now);
    // Read before the transaction: SQLite has one connection, and the transaction holds it.
    const link = purchase ? await links.findForVisitor(purchase.link_id) : undefined;
    if (!purchase) {
      // Unpaid (an asynchronous method still settling) or not ours: nothing to deliver. Paid at another
      // price than it was started at: not what the link sells, and someone must look at it.
      if (session.payment_status === 'paid' && session.metadata?.link_id && !paidAsPriced(session)) {
        log.error(
          { linkId: session.metadata.link_id, paymentIntent: session.payment_intent },
          'a checkout was paid at another price than it was started at: not fulfilled',
        );
      }
      return;
    }
    if (!link) {
      log.error(
        { linkId: purchase.link_id, paymentIntent: session.payment_intent },
        'a checkout was paid for a link deleted meanwhile: nothing was delivered; refund it in Stripe',
      );
      return;
    }
    await once(event, async (trx) => {
      // The buyer's first download may have recorded it; only one event of a session fulfils it.
      await insertPurchase(trx, purchase);
      if (!(await markPurchaseFulfilled(trx, purchase.checkout_session_hash, now))) return;
      const ttlSeconds = PURCHASE_WINDOW_MS / 1000;
      const { token, expiresAt } = await downloads.issuePurchaseToken(
        link.id,
        { checkoutSessionHash: purchase.checkout_session_hash, ttlSeconds },
        trx,
      );
      await notify.purchaseReceipt(
        link,
        {
          email: purchase.email,
          amount: purchase.amount,
          currency: purchase.currency,
          downloadUrl: `${publicUrl}${receiptDownloadPath(link.id, session.metadata?.room_id)}?token=${encodeURIComponent(token)}`,
          downloads: PURCHASE_DOWNLOADS,
          expiresAt,
        },
        trx,
      );
      const seller = await viewAlerts.recipientOf(link, trx);
      if (seller) await notify.saleMade(link, { email: purchase.email, amount: purchase.amount, currency: purchase.currency }, seller, trx);
      await events.record(trx, {
        accountId: link.account_id,
        type: 'purchase.completed',
        linkId: link.id,
        payload: { linkName: link.name, email: purchase.email, amount: purchase.amount, currency: purchase.currency },
      });
    });
  }

  return {
    /** Verifies and handles one delivery; a bad signature is a 400 and changes nothing. */
    async receive(rawBody: Buffer | undefined, signature: string | string[] | undefined): Promise<void> {
      const event = verify(rawBody, signature);
      switch (event.type) {
        case 'checkout.session.completed':
        case 'checkout.session.async_payment_succeeded':
          // Our checkouts are the platform's own (destination charges). One from a connected account
          // was made by its seller, who could name any link in its metadata and pay themselves.
          if (event.account) return;
          return completePurchase(event, event.data.object);
        case 'charge.refunded':
        case 'charge.dispute.created': {
          // A refund in full, or a dispute, ends what the payment bought; a partial refund does not.
          if (event.account) return;
          const charge = event.data.object;
          if (event.type === 'charge.refunded' && !(charge as Stripe.Charge).refunded) return;
          const paymentIntent = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
          if (!paymentIntent) return;
          return once(event, async (trx) => {
            const ended = await endPurchasesPaidBy(trx, paymentIntent);
            if (ended > 0) log.info({ paymentIntent, reason: event.type }, 'a purchase was refunded or disputed: its downloads ended');
          });
        }
        case 'account.updated': {
          const account = event.data.object;
          return once(event, (trx) => sellers.applyAccountUpdate(trx, account));
        }
        default:
          // Subscribed by mistake, or new: acknowledged so Stripe stops retrying.
          return;
      }
    },
  };
}

export type StripeWebhook = ReturnType<typeof createStripeWebhook>;
