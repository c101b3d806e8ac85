import type { Kysely } from 'kysely';

// A buyer's receipt token draws on its purchase's downloads (it named none: the token and the
// checkout session each gave the full count), and a purchase knows its payment, so that a refund
// or a dispute of it can end its downloads. Tokens and purchases made before keep what they had.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('download_tokens').addColumn('checkout_session_hash', 'text').execute();
  await db.schema.alterTable('purchases').addColumn('payment_intent', 'text').execute();
  await db.schema.createIndex('purchases_payment_intent').on('purchases').column('payment_intent').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('purchases_payment_intent').execute();
  await db.schema.alterTable('purchases').dropColumn('payment_intent').execute();
  await db.schema.alterTable('download_tokens').dropColumn('checkout_session_hash').execute();
}
