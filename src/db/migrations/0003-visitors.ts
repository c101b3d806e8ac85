import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A visit is one browser's way through a link's gates (OTP, password, approval) and then
  // its view session. The cookie holds a random token; only its SHA-256 is stored.
  await withIdColumn(db, db.schema.createTable('visits'))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('otp_email', 'text')
    .addColumn('otp_passed', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('password_passed', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('access_request_id', 'integer')
    .addColumn('ip', 'text', (column) => column.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('view_id', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('session_started_at', 'bigint')
    .execute();
  await db.schema.createIndex('visits_link_idx').on('visits').columns(['link_id', 'session_started_at']).execute();

  await withIdColumn(db, db.schema.createTable('otp_codes'))
    // "link:<id>" or "portal:<id>": what a verified code unlocks.
    .addColumn('scope', 'text', (column) => column.notNull())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('code_hash', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('consumed_at', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('otp_codes_scope_email_idx').on('otp_codes').columns(['scope', 'email', 'created_at']).execute();

  await withIdColumn(db, db.schema.createTable('access_requests'))
    .addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'))
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('visitor_ip', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('decided_at', 'bigint')
    .execute();
  await db.schema.createIndex('access_requests_link_idx').on('access_requests').columns(['link_id', 'status']).execute();

  await withIdColumn(db, db.schema.createTable('page_views'))
    .addColumn('visit_id', 'integer', (column) => column.notNull().references('visits.id').onDelete('cascade'))
    .addColumn('page', 'integer', (column) => column.notNull())
    .addColumn('seconds', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('page_views_visit_idx').on('page_views').column('visit_id').execute();

  // Every e-mail goes through this table: a request only inserts; a dispatcher sends,
  // retries with backoff, and resumes after a restart.
  await withIdColumn(db, db.schema.createTable('mail_outbox'))
    .addColumn('account_id', 'integer', (column) => column.references('accounts.id').onDelete('set null'))
    .addColumn('to_address', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('text_body', 'text', (column) => column.notNull())
    .addColumn('html_body', 'text')
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (column) => column.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('sent_at', 'bigint')
    .execute();
  await db.schema.createIndex('mail_outbox_due_idx').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['mail_outbox', 'page_views', 'access_requests', 'otp_codes', 'visits']) {
    await db.schema.dropTable(table).execute();
  }
}
