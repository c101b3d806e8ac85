import { sql, type Kysely } from 'kysely';

// Links may now live any time or forever (ADR 0015), so the hour-of-expiry buckets of 0013 and
// the active tab's 7-day bound go. A link is filed under the expired tab once its expiry has
// passed and a list of its account has settled it (`in_expired_tab`); until then the count
// subtracts it exactly through links_unfiled_expiry_idx, which holds only links not filed yet.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('links')
    .addColumn('in_expired_tab', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('link_counts')
    .addColumn('expired', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  const now = Date.now();
  await sql`update links set in_expired_tab = 1 where expires_at <= ${now}`.execute(db);
  await sql`
    update link_counts set expired =
      (select count(*) from links where links.account_id = link_counts.account_id and links.in_expired_tab = 1)`.execute(db);

  // Each tab newest first (covering the active tab's expiry check); and the links not filed yet, by expiry.
  await db.schema
    .createIndex('links_account_tab_idx')
    .on('links')
    .columns(['account_id', 'in_expired_tab', 'created_at', 'id', 'expires_at'])
    .execute();
  await db.schema
    .createIndex('links_unfiled_expiry_idx')
    .on('links')
    .columns(['account_id', 'expires_at'])
    .where(sql.ref('in_expired_tab'), '=', 0)
    .execute();
  await db.schema.dropIndex('links_account_expiry_idx').execute();
  await db.schema.dropTable('link_expiry_counts').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('link_expiry_counts')
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('expiry_hour', 'integer', (column) => column.notNull())
    .addColumn('links', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('link_expiry_counts_pk', ['account_id', 'expiry_hour'])
    .execute();
  await sql`
    insert into link_expiry_counts (account_id, expiry_hour, links)
    select account_id, expires_at / 3600000, count(*) from links group by account_id, expires_at / 3600000`.execute(db);
  await db.schema.createIndex('links_account_expiry_idx').on('links').columns(['account_id', 'expires_at']).execute();
  await db.schema.dropIndex('links_unfiled_expiry_idx').execute();
  await db.schema.dropIndex('links_account_tab_idx').execute();
  await db.schema.alterTable('link_counts').dropColumn('expired').execute();
  await db.schema.alterTable('links').dropColumn('in_expired_tab').execute();
}
