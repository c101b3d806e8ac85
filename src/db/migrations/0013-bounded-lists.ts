import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Link counts kept in the transaction of each insert and delete (ADR 0011): a total per
  // account, and per account and hour of expiry, so "active" is a sum over the at most 169
  // hours still ahead plus an exact count within the current hour, however many links expired.
  await db.schema
    .createTable('link_counts')
    .addColumn('account_id', 'integer', (column) => column.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('links', 'integer', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('link_expiry_counts')
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('expiry_hour', 'integer', (column) => column.notNull())
    .addColumn('links', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('link_expiry_counts_pk', ['account_id', 'expiry_hour'])
    .execute();
  await sql`insert into link_counts (account_id, links) select account_id, count(*) from links group by account_id`.execute(db);
  await sql`
    insert into link_expiry_counts (account_id, expiry_hour, links)
    select account_id, expires_at / 3600000, count(*) from links group by account_id, expires_at / 3600000`.execute(db);
  // The exact count within the current hour of expiry.
  await db.schema.createIndex('links_account_expiry_idx').on('links').columns(['account_id', 'expires_at']).execute();
  // The dashboard's most viewed links, read from the top of the index.
  await db.schema.createIndex('links_account_views_idx').on('links').columns(['account_id', 'views', 'created_at', 'id']).execute();

  // Recent activity orders by (created_at, id): the index ends with id so PostgreSQL needs no sort.
  await db.schema.createIndex('events_account_latest_idx').on('events').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema.dropIndex('events_account_recent_idx').execute();

  // Unique visitors and downloads of an account, counted by analytics' projections as they happen.
  await db.schema
    .createTable('account_analytics_totals')
    .addColumn('account_id', 'integer', (column) => column.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('visitors', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('downloads', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await sql`
    insert into account_analytics_totals (account_id, visitors, downloads)
    select accounts.id,
      (select count(*) from account_visitors where account_visitors.account_id = accounts.id),
      (select count(*) from events where events.account_id = accounts.id and events.type = 'link.downloaded')
    from accounts`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('account_analytics_totals').execute();
  await db.schema.createIndex('events_account_recent_idx').on('events').columns(['account_id', 'created_at']).execute();
  await db.schema.dropIndex('events_account_latest_idx').execute();
  await db.schema.dropIndex('links_account_views_idx').execute();
  await db.schema.dropIndex('links_account_expiry_idx').execute();
  await db.schema.dropTable('link_expiry_counts').execute();
  await db.schema.dropTable('link_counts').execute();
}
