import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A token a buyer paid for outlives the link's deactivation or expiry; an owner's does not.
  await db.schema
    .alterTable('download_tokens')
    .addColumn('purchased', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('download_tokens').dropColumn('purchased').execute();
}
