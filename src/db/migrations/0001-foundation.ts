import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('accounts'))
    .addColumn('email', 'text', (column) => column.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('plan', 'text', (column) => column.notNull())
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable('api_keys'))
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('key_hash', 'text', (column) => column.notNull().unique())
    .addColumn('key_prefix', 'text', (column) => column.notNull())
    .addColumn('active', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('revoked_at', 'bigint')
    .addColumn('total_requests', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('last_used_at', 'bigint')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').columns(['account_id', 'revoked_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('accounts').execute();
}
