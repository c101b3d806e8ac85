import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('integrations'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('channel', 'text', (column) => column.notNull())
    // The webhook URL is a secret (it alone lets anyone post to the channel): sealed, never returned.
    .addColumn('webhook_url_sealed', 'text', (column) => column.notNull())
    .addColumn('enabled', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('integrations_account_idx').on('integrations').column('account_id').execute();

  // The outbox: written in the same transaction as the change that caused the event.
  await withIdColumn(db, db.schema.createTable('events'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('link_id', 'text')
    .addColumn('payload', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('events_account_type_idx').on('events').columns(['account_id', 'type', 'created_at']).execute();
  await db.schema.createIndex('events_link_idx').on('events').columns(['link_id', 'type']).execute();

  // One row per (event, integration) to deliver; claimed atomically by one replica.
  await withIdColumn(db, db.schema.createTable('event_deliveries'))
    .addColumn('event_id', 'integer', (column) => column.notNull().references('events.id').onDelete('cascade'))
    .addColumn('integration_id', 'integer', (column) => column.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (column) => column.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema.createIndex('event_deliveries_due_idx').on('event_deliveries').columns(['status', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('event_deliveries').execute();
  await db.schema.dropTable('events').execute();
  await db.schema.dropTable('integrations').execute();
}
