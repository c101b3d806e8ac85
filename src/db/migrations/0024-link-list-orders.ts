import { sql, type Kysely } from 'kysely';

// Issue 21: the documents list is searched by name and sorted by name, views or last view, as
// well as newest first (names A to Z whatever their case: lower(name)). Each order has its index per tab (covering the active tab's expiry
// check), so every page is read by key as the default one is (ADR 0011). A link never viewed
// has last_viewed_at 0, not null: both databases then order it last in a newest-first list
// without a sort (PostgreSQL puts nulls first in a descending index).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('last_viewed_at', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('links_account_tab_name_idx')
    .on('links')
    .column('account_id')
    .column('in_expired_tab')
    .column(sql`lower(${sql.ref('name')})`)
    .columns(['id', 'expires_at'])
    .execute();
  await db.schema
    .createIndex('links_account_tab_views_idx')
    .on('links')
    .columns(['account_id', 'in_expired_tab', 'views', 'id', 'expires_at'])
    .execute();
  await db.schema
    .createIndex('links_account_tab_viewed_idx')
    .on('links')
    .columns(['account_id', 'in_expired_tab', 'last_viewed_at', 'id', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('links_account_tab_viewed_idx').execute();
  await db.schema.dropIndex('links_account_tab_views_idx').execute();
  await db.schema.dropIndex('links_account_tab_name_idx').execute();
  await db.schema.alterTable('links').dropColumn('last_viewed_at').execute();
}
