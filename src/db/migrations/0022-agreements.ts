import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

// Issue 20: agreements (an NDA) a visitor accepts before viewing, and each acceptance kept.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('agreements'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    // Markdown, or a PDF held by one of the account's links: exactly one of the two.
    .addColumn('body', 'text')
    .addColumn('pdf_link_id', 'text', (column) => column.references('links.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('agreements_account_idx').on('agreements').columns(['account_id', 'id']).execute();

  await withIdColumn(db, db.schema.createTable('agreement_acceptances'))
    .addColumn('agreement_id', 'integer', (column) => column.notNull().references('agreements.id').onDelete('cascade'))
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('ip', 'text', (column) => column.notNull())
    .addColumn('user_agent', 'text')
    // SHA-256 of the exact text accepted (the Markdown, or the PDF's bytes).
    .addColumn('text_sha256', 'text', (column) => column.notNull())
    .addColumn('accepted_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('agreement_acceptances_link_idx').on('agreement_acceptances').columns(['link_id', 'id']).execute();

  await db.schema
    .alterTable('links')
    .addColumn('agreement_id', 'integer', (column) => column.references('agreements.id').onDelete('set null'))
    .execute();
  await db.schema
    .alterTable('visits')
    .addColumn('agreement_accepted', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('visits').dropColumn('agreement_accepted').execute();
  await db.schema.alterTable('links').dropColumn('agreement_id').execute();
  await db.schema.dropTable('agreement_acceptances').execute();
  await db.schema.dropTable('agreements').execute();
}
