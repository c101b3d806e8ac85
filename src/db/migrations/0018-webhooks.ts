import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

// Signed webhooks (issue 20): an account's endpoints, and one delivery per message sent to one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('webhooks'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url_sealed', 'text', (column) => column.notNull())
    // Shown in lists instead of the URL, whose path often carries a token of the receiver's.
    .addColumn('url_origin', 'text', (column) => column.notNull())
    .addColumn('events', 'text', (column) => column.notNull())
    .addColumn('active', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('secret_sealed', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('webhooks_account_idx').on('webhooks').columns(['account_id', 'id']).execute();

  await withIdColumn(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('webhook_id', 'integer', (column) => column.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (column) => column.notNull().unique())
    .addColumn('event_type', 'text', (column) => column.notNull())
    // The exact body signed and sent: a retry sends the same bytes under the same message id.
    .addColumn('body', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_deliveries_latest_idx').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
