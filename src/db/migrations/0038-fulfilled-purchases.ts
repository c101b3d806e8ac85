import { sql, type Kysely } from 'kysely';

// A purchase is recorded by whichever comes first, Stripe's webhook or the buyer's first download
// by session id, and fulfilled (receipt, token, event) by the webhook once: `fulfilled_at` says it
// was. Purchases recorded before this migration were fulfilled by the webhook that recorded or met them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('purchases').addColumn('fulfilled_at', 'bigint').execute();
  await sql`UPDATE purchases SET fulfilled_at = created_at`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('purchases').dropColumn('fulfilled_at').execute();
}
