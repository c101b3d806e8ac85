import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('portals')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('slug', 'text', (column) => column.notNull().unique())
    .addColumn('allowed_emails', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('portals_account_idx').on('portals').column('account_id').execute();

  await db.schema
    .createTable('portal_links')
    .addColumn('portal_id', 'text', (column) => column.notNull().references('portals.id').onDelete('cascade'))
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('portal_links_pk', ['portal_id', 'link_id'])
    .execute();

  // A client's way into a portal: the e-mail verified by OTP, behind a cookie token (hashed).
  await withIdColumn(db, db.schema.createTable('portal_sessions'))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('portal_id', 'text', (column) => column.notNull().references('portals.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('otp_email', 'text')
    .addColumn('verified_at', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable('link_templates'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    // The stated settings only (JSON of Partial<LinkSettings>); upload fields override them.
    .addColumn('settings', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('link_templates_account_idx').on('link_templates').column('account_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['link_templates', 'portal_sessions', 'portal_links', 'portals']) await db.schema.dropTable(table).execute();
}
