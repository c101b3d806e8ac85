import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('links')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('mime', 'text', (column) => column.notNull())
    // The current file version; null for rooms. Each version is its own blob, replaced atomically.
    .addColumn('version', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('blob_key', 'text')
    .addColumn('wrapped_key', 'text')
    .addColumn('size', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('sha256', 'text')
    .addColumn('is_active', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('password_hash', 'text')
    .addColumn('has_watermark', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('requires_approval', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('requires_otp', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('allowed_emails', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('allowed_domains', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('booking_url', 'text')
    .addColumn('preview_pages', 'integer')
    .addColumn('view_session_ttl', 'integer', (column) => column.notNull().defaultTo(3600))
    .addColumn('max_views', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('views', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('require_payment', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('download_price', 'integer')
    .addColumn('download_currency', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('blob_purged_at', 'bigint')
    .execute();
  // Listing: newest first within an account and tab (active vs expired is a comparison on expires_at).
  // Covers the tab filter too, so skipping to the last page never touches the table.
  await db.schema.createIndex('links_account_created_idx').on('links').columns(['account_id', 'created_at', 'id', 'expires_at']).execute();
  await db.schema.createIndex('links_expires_idx').on('links').columns(['expires_at']).execute();

  await db.schema
    .createTable('room_links')
    .addColumn('room_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('position', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('room_links_pk', ['room_id', 'link_id'])
    .execute();
  await db.schema.createIndex('room_links_link_idx').on('room_links').column('link_id').execute();

  await withIdColumn(db, db.schema.createTable('download_tokens'))
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('uses_left', 'integer', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('download_tokens').execute();
  await db.schema.dropTable('room_links').execute();
  await db.schema.dropTable('links').execute();
}
