import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

interface Purchases {
  purchases: { id: number; checkout_session_hash: string };
}

const BATCH = 500;
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

// A checkout session id is a bearer credential (`?session_id=` downloads the purchase): like every
// other token it is kept as its SHA-256, and a purchase is found by the hash of the id a buyer or
// Stripe's webhook names.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('purchases').renameColumn('checkout_session_id', 'checkout_session_hash').execute();
  const purchases = db as Kysely<Purchases>;
  for (let after = 0; ;) {
    const rows = await purchases
      .selectFrom('purchases')
      .select(['id', 'checkout_session_hash'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      await purchases
        .updateTable('purchases')
        .set({ checkout_session_hash: sha256Hex(row.checkout_session_hash) })
        .where('id', '=', row.id)
        .execute();
    }
    after = rows.at(-1)!.id;
  }
}

// A hash cannot be undone: after a downgrade the purchases made before it download through their
// receipt's token only, not through `?session_id=`.
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('purchases').renameColumn('checkout_session_hash', 'checkout_session_id').execute();
}
