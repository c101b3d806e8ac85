import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { PurchasesTable } from '../../db/types.js';

export type NewPurchase = Insertable<PurchasesTable>;

export function findStripeAccount(db: Executor, accountId: number) {
  return db.selectFrom('stripe_accounts').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

export function findStripeAccountByStripeId(db: Executor, stripeAccountId: string) {
  return db.selectFrom('stripe_accounts').selectAll().where('stripe_account_id', '=', stripeAccountId).executeTakeFirst();
}

/** Keeps the first connected account of an account when two requests race to create one. */
export async function insertStripeAccount(
  db: Executor,
  row: { accountId: number; stripeAccountId: string; chargesEnabled: boolean; now: number },
): Promise<void> {
  await db
    .insertInto('stripe_accounts')
    .values({
      account_id: row.accountId,
      stripe_account_id: row.stripeAccountId,
      charges_enabled: Number(row.chargesEnabled),
      checked_at: row.now,
      created_at: row.now,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function updateChargesEnabled(db: Executor, stripeAccountId: string, chargesEnabled: boolean, checkedAt: number): Promise<void> {
  await db
    .updateTable('stripe_accounts')
    .set({ charges_enabled: Number(chargesEnabled), checked_at: checkedAt })
    .where('stripe_account_id', '=', stripeAccountId)
    .execute();
}

/** Records a paid checkout session; false if it was already recorded. */
export async function insertPurchase(db: Executor, purchase: NewPurchase): Promise<boolean> {
  const row = await db
    .insertInto('purchases')
    .values(purchase)
    .onConflict((oc) => oc.column('checkout_session_hash').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Marks a recorded purchase fulfilled; false if it was already (another event of the same session). */
export async function markPurchaseFulfilled(db: Executor, checkoutSessionHash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('purchases')
    .set({ fulfilled_at: now })
    .where('checkout_session_hash', '=', checkoutSessionHash)
    .where('fulfilled_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends the downloads of the purchases a PaymentIntent paid (refunded, or disputed); how many there were. */
export async function endPurchasesPaidBy(db: Executor, paymentIntent: string): Promise<number> {
  const result = await db.updateTable('purchases').set({ downloads_left: 0 }).where('payment_intent', '=', paymentIntent).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function purchaseExists(db: Executor, checkoutSessionHash: string): Promise<boolean> {
  const row = await db.selectFrom('purchases').select('id').where('checkout_session_hash', '=', checkoutSessionHash).executeTakeFirst();
  return row !== undefined;
}

/** Spends one download of a live purchase of this link, atomically; the buyer, or undefined if none was left. */
export function spendPurchaseDownload(db: Executor, linkId: string, checkoutSessionHash: string, now: number) {
  return db
    .updateTable('purchases')
    .set((eb) => ({ downloads_left: eb('downloads_left', '-', 1) }))
    .where('checkout_session_hash', '=', checkoutSessionHash)
    .where('link_id', '=', linkId)
    .where('downloads_left', '>', 0)
    .where('expires_at', '>', now)
    .returning('email')
    .executeTakeFirst();
}

/** Claims a webhook event for this transaction; false if it was handled before. */
export async function claimStripeEvent(db: Executor, event: { id: string; type: string; now: number }): Promise<boolean> {
  const row = await db
    .insertInto('stripe_events')
    .values({ event_id: event.id, type: event.type, processed_at: event.now })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}
