import type { Kysely } from 'kysely';

// A view told in the daily digest says whether its visitor only typed the address (an e-mail gate),
// as the e-mail of a single view does; rows queued before this migration read as proven.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('view_alerts')
    .addColumn('address_unverified', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('view_alerts').dropColumn('address_unverified').execute();
}
