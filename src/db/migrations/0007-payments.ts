import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('stripe_accounts')
    .addColumn('account_id', 'integer', (column) => column.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('stripe_account_id', 'text', (column) => column.notNull().unique())
    .addColumn('charges_enabled', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('checked_at', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable('purchases'))
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('checkout_session_id', 'text', (column) => column.notNull().unique())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('amount', 'integer', (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('link_version', 'integer', (column) => column.notNull())
    .addColumn('downloads_left', 'integer', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();

  // Webhook events already handled: Stripe retries, and each event must act once.
  await db.schema
    .createTable('stripe_events')
    .addColumn('event_id', 'text', (column) => column.primaryKey())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('processed_at', 'bigint', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['stripe_events', 'purchases', 'stripe_accounts']) await db.schema.dropTable(table).execute();
}
