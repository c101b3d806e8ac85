import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import { AppError, badRequest, forbidden, notFound, unprocessable } from '../../core/errors.js';
import { takePlace, type WindowCounter } from '../../core/rate-limit.js';
import { clientNetworkOf } from '../../infra/http/address-policy.js';
import { sha256Hex } from '../../infra/crypto/tokens.js';
import type { EventRecorder } from '../events/events.service.js';
import { isEmail } from '../../core/email-address.js';
import { viewerPathOf } from '../links/links.service.js';
import type { Visitor } from '../visits/visitor.js';
import type { VisitsService } from '../visits/visits.service.js';
import { isCheckoutSessionId, salePriceOf } from './sale.js';
import { insertPurchase, purchaseExists, spendPurchaseDownload, type NewPurchase } from './payments.repo.js';
import type { StripeConnect } from './connect.service.js';
import { callStripe, requireStripe, retrieveOrNull, type Stripe } from './stripe-client.js';

/** What one paid checkout session buys: this many downloads of the original, for this long. */
export const PURCHASE_DOWNLOADS = 5;
export const PURCHASE_WINDOW_MS = 7 * 86_400_000;

/** How long a started checkout may be paid (Stripe allows 30 minutes to a day). */
const CHECKOUT_LIFETIME_SECONDS = 3600;
/**
 * Checkouts one client network may start in 10 minutes, whatever the links: each is a call to Stripe
 * on the platform's key, whose rate limit every account's buyers share.
 */
const CHECKOUTS_PER_CLIENT = { limit: 10, windowMs: 10 * 60_000 } as const;

const CANNOT_SELL = 'The owner of this document cannot accept payments right now';

/**
 * Where a buyer's receipt downloads the original: the API's path by the link's id, or, for a file
 * bought inside data room `roomId`, the room's path, which names it without its own id.
 */
export const receiptDownloadPath = (linkId: string, roomId?: string) =>
  roomId ? `${viewerPathOf(linkId, roomId)}/download-original` : `/api/links/${linkId}/download-original`;

/** What a checkout is started at, in its metadata, so that what Stripe says was paid can be held to it. */
const priceMetadata = (price: { amount: number; currency: string }) => ({ price: `${price.amount} ${price.currency.toLowerCase()}` });

/**
 * Whether a session was paid at the price it was started at. Sessions started before their
 * metadata carried the price (an hour's worth at most, at an upgrade) are taken as paid.
 */
export function paidAsPriced(session: Stripe.Checkout.Session): boolean {
  const started = session.metadata?.price;
  if (started === undefined) return true;
  return (
    session.amount_total !== null &&
    !!session.currency &&
    started === priceMetadata({ amount: session.amount_total, currency: session.currency }).price
  );
}

/** The purchase a checkout session stands for, or null if it is unpaid, not one of ours, or not paid at its price. */
export function purchaseOf(session: Stripe.Checkout.Session, now: number): NewPurchase | null {
  const linkId = session.metadata?.link_id;
  const email = session.customer_details?.email ?? session.customer_email;
  if (session.payment_status !== 'paid' || !linkId || !email || session.amount_total === null || !session.currency) return null;
  if (!paidAsPriced(session)) return null;
  return {
    link_id: linkId,
    // The session id downloads the purchase: kept, like every token, as its hash.
    checkout_session_hash: sha256Hex(session.id),
    email: email.toLowerCase(),
    amount: session.amount_total,
    currency: session.currency,
    link_version: Number(session.metadata?.link_version) || 1,
    payment_intent: typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null),
    downloads_left: PURCHASE_DOWNLOADS,
    expires_at: now + PURCHASE_WINDOW_MS,
    created_at: now,
  };
}

/** Buying a link's original through Stripe Checkout, and the downloads a paid session allows. */
export function createCheckoutService(deps: {
  db: Db;
  clock: Clock;
  counter: WindowCounter;
  stripe: Stripe | null;
  sellers: Pick<StripeConnect, 'sellerAccountOf'>;
  visits: Pick<VisitsService, 'inspect' | 'requireSession'>;
  /** Where the account's viewer pages live (its own domain, if branded): the buyer returns there. */
  viewerBase: (accountId: number) => Promise<string>;
  platformFeePercent: number;
  events: EventRecorder;
}) {
  const { db, clock, counter, stripe, sellers, visits, viewerBase, platformFeePercent, events } = deps;

  /**
   * Starts a checkout for `link`, whose viewing the caller has already checked. A destination
   * charge: the buyer pays the platform, the owner's connected account receives the price less the fee.
   * The buyer comes back to the link's viewer page, inside data room `roomId` when bought there:
   * the receipt then names the file by its room path too, never by the link's own id.
   */
  async function createCheckout(link: LinkRow, buyer: Visitor, rawEmail: string, roomId?: string): Promise<{ url: string }> {
    // Not for sale is the answer whether or not payments are configured: a free link's page never meets a 503.
    const price = salePriceOf(link);
    if (!price) throw unprocessable('This document is not for sale');
    const client = requireStripe(stripe);
    const email = rawEmail.trim().toLowerCase();
    if (!isEmail(email)) throw badRequest('Enter a valid e-mail address for the receipt');
    const destination = await sellers.sellerAccountOf(link.account_id);
    if (!destination) throw unprocessable(CANNOT_SELL);
    await takePlace(counter, {
      key: `checkout:${clientNetworkOf(buyer.ip)}`,
      ...CHECKOUTS_PER_CLIENT,
      message: 'Too many checkouts have been started from your network; try again in a few minutes',
    });
    const fee = Math.floor((price.amount * platformFeePercent) / 100);
    const metadata = { link_id: link.id, link_version: String(link.version), ...priceMetadata(price), ...(roomId && { room_id: roomId }) };
    const returnUrl = `${await viewerBase(link.account_id)}${viewerPathOf(link.id, roomId)}`;
    const session = await callStripe(
      () =>
        client.checkout.sessions.create({
          mode: 'payment',
          customer_email: email,
          line_items: [
            {
              quantity: 1,
              price_data: { currency: price.currency, unit_amount: price.amount, product_data: { name: link.name } },
            },
          ],
          payment_intent_data: { transfer_data: { destination }, ...(fee > 0 && { application_fee_amount: fee }), metadata },
          metadata,
          // Not Stripe's default day: a checkout is paid at the price it was started with, so one left
          // open would still buy the file after the owner raised its price or replaced it.
          expires_at: Math.floor(clock() / 1000) + CHECKOUT_LIFETIME_SECONDS,
          success_url: `${returnUrl}?session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: returnUrl,
        }),
      CANNOT_SELL,
    );
    if (!session.url) throw new AppError(502, 'Stripe returned a checkout session without a payment page');
    return { url: session.url };
  }

  /** Spends one download of a live purchase of `link`; false when none is left, it expired, or it was refunded. */
  async function spendDownload(link: Pick<LinkRow, 'id' | 'account_id' | 'name'>, sessionHash: string): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const spent = await spendPurchaseDownload(trx, link.id, sessionHash, clock());
      if (!spent) return false;
      const payload = { linkName: link.name, email: spent.email };
      await events.record(trx, { accountId: link.account_id, type: 'link.downloaded', linkId: link.id, payload });
      return true;
    });
  }

  return {
    /**
     * A checkout started on the link's viewer page, on its own or inside a data room, by a
     * visitor holding a view session of it (403 otherwise); the buyer comes back to that page.
     */
    async checkoutOnPage(linkId: string, visitor: Visitor, email: string): Promise<{ url: string }> {
      const { link, room } = await visits.requireSession(linkId, visitor);
      return createCheckout(link, visitor, email, room?.id);
    },

    /** A checkout for a visitor holding a view session of the link itself (403 otherwise). */
    async checkoutForVisitor(linkId: string, visitor: Visitor, email: string): Promise<{ url: string }> {
      requireStripe(stripe);
      const { link, state } = await visits.inspect(linkId, visitor);
      if (!link) throw notFound('Link');
      if (state.step !== 'session') throw forbidden('Open the link and pass its checks before buying it');
      return createCheckout(link, visitor, email);
    },

    /**
     * Spends one download of the purchase made through `sessionId`; false for an unpaid,
     * unknown or foreign session, or one whose downloads are used up. The first use asks
     * Stripe, so a buyer whose webhook has not arrived yet is not turned away.
     */
    async spendSessionDownload(link: Pick<LinkRow, 'id' | 'account_id' | 'name'>, sessionId: string): Promise<boolean> {
      if (!isCheckoutSessionId(sessionId)) return false;
      const sessionHash = sha256Hex(sessionId);
      if (!(await purchaseExists(db, sessionHash))) {
        // Without Stripe an unrecorded session proves nothing: the same 403 as any stranger's (a 503 would tell which links exist).
        if (!stripe) return false;
        const session = await retrieveOrNull(() => stripe.checkout.sessions.retrieve(sessionId));
        const purchase = session && purchaseOf(session, clock());
        if (!purchase || purchase.link_id !== link.id) return false;
        await insertPurchase(db, purchase);
      }
      return spendDownload(link, sessionHash);
    },

    /** Spends one download of the purchase a receipt's token stands for (by its session's hash). */
    spendPurchaseDownload: spendDownload,
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
