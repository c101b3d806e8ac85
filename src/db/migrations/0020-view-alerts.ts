import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

// Issue 20: the owner hears of each visitor who opens a link, at once or in a daily digest.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('notify_on_view', 'integer', (column) => column.notNull().defaultTo(1))
    .execute();
  // Who made the link, when a person did (an API key is nobody's): alerts go to them.
  await db.schema
    .alterTable('links')
    .addColumn('created_by', 'integer', (column) => column.references('users.id').onDelete('set null'))
    .execute();
  // The account's choice: each view at once (the default, no row) or one digest a day.
  await db.schema
    .createTable('view_alert_settings')
    .addColumn('account_id', 'integer', (column) => column.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('mode', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable('view_alerts'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('visitor', 'text', (column) => column.notNull())
    .addColumn('recipient', 'text', (column) => column.notNull())
    .addColumn('document_name', 'text', (column) => column.notNull())
    .addColumn('viewed_at', 'bigint', (column) => column.notNull())
    // Set when the view waits for the daily digest; cleared when the digest is queued.
    .addColumn('in_digest', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('view_alerts_recent_idx').on('view_alerts').columns(['link_id', 'visitor', 'viewed_at']).execute();
  await db.schema.createIndex('view_alerts_digest_idx').on('view_alerts').columns(['in_digest', 'viewed_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('view_alerts').execute();
  await db.schema.dropTable('view_alert_settings').execute();
  await db.schema.alterTable('links').dropColumn('created_by').execute();
  await db.schema.alterTable('links').dropColumn('notify_on_view').execute();
}
