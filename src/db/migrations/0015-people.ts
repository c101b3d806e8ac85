import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // People who sign in. The e-mail is stored lower-cased, so the unique index is case-insensitive.
  await withIdColumn(db, db.schema.createTable('users'))
    .addColumn('email', 'text', (column) => column.notNull().unique())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('password_hash', 'text')
    // sealed under the master key; set at enrolment, confirmed once a code from it was given
    .addColumn('totp_secret', 'text')
    .addColumn('totp_confirmed_at', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('last_sign_in_at', 'bigint')
    .addColumn('disabled_at', 'bigint')
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'account_id'])
    .execute();
  await db.schema.createIndex('memberships_account_idx').on('memberships').columns(['account_id', 'role']).execute();

  await withIdColumn(db, db.schema.createTable('invitations'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('invited_by', 'integer', (column) => column.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('accepted_at', 'bigint')
    .execute();
  await db.schema.createIndex('invitations_account_idx').on('invitations').columns(['account_id', 'email']).execute();

  // A signed-in browser. The row is found by the SHA-256 of the cookie's id; `public_id` names it in the API.
  await db.schema
    .createTable('sessions')
    .addColumn('id_hash', 'text', (column) => column.primaryKey())
    .addColumn('public_id', 'text', (column) => column.notNull().unique())
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('last_seen_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('ip', 'text', (column) => column.notNull())
    .addColumn('user_agent', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  // Single-use links sent or printed to a person: first-run setup, magic sign-in, password reset, sign-up.
  await db.schema
    .createTable('sign_in_tokens')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('purpose', 'text', (column) => column.notNull())
    .addColumn('email', 'text')
    .addColumn('user_id', 'integer', (column) => column.references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('sign_in_tokens_expires_idx').on('sign_in_tokens').column('expires_at').execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (column) => column.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();

  // Who changed what. No foreign key to accounts: a failed sign-in for an unknown e-mail has no account.
  await withIdColumn(db, db.schema.createTable('audit_log'))
    .addColumn('account_id', 'integer')
    .addColumn('at', 'bigint', (column) => column.notNull())
    .addColumn('actor_type', 'text', (column) => column.notNull())
    .addColumn('actor_id', 'integer')
    .addColumn('actor_label', 'text', (column) => column.notNull())
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('details', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('audit_log_account_idx').on('audit_log').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['audit_log', 'recovery_codes', 'sign_in_tokens', 'sessions', 'invitations', 'memberships', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
