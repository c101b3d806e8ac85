import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The answer of an upload or replacement sent with an Idempotency-Key, written in the same
  // transaction as the change, so a retry after any failure gets it instead of a second copy.
  await db.schema
    .createTable('idempotent_requests')
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key', 'text', (column) => column.notNull())
    .addColumn('purpose', 'text', (column) => column.notNull())
    .addColumn('response', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('idempotent_requests_pk', ['account_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotent_requests_created_idx').on('idempotent_requests').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotent_requests').execute();
}
