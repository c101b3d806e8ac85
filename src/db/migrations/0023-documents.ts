import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

// Issue 19: each version of a paged file (PDF or Office) is rendered to page images on the server.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('documents'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('version', 'integer', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('page_count', 'integer')
    .addColumn('error', 'text')
    // The PDF LibreOffice made of an Office file, sealed like every blob; null for a PDF upload.
    .addColumn('pdf_blob_key', 'text')
    .addColumn('pdf_wrapped_key', 'text')
    .addColumn('pdf_size', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .addUniqueConstraint('documents_link_version_key', ['link_id', 'version'])
    .execute();

  await db.schema
    .createTable('document_pages')
    .addColumn('document_id', 'integer', (column) => column.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('page', 'integer', (column) => column.notNull())
    .addColumn('width', 'integer', (column) => column.notNull())
    .addColumn('height', 'integer', (column) => column.notNull())
    .addColumn('image_key', 'text', (column) => column.notNull())
    .addColumn('image_wrapped_key', 'text', (column) => column.notNull())
    .addColumn('image_size', 'integer', (column) => column.notNull())
    .addColumn('thumbnail_key', 'text', (column) => column.notNull())
    .addColumn('thumbnail_wrapped_key', 'text', (column) => column.notNull())
    .addColumn('thumbnail_size', 'integer', (column) => column.notNull())
    .addColumn('text', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('document_pages_pkey', ['document_id', 'page'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('document_pages').execute();
  await db.schema.dropTable('documents').execute();
}
