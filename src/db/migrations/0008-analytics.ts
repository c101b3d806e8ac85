import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Recent activity: the account's latest events.
  await db.schema.createIndex('events_account_recent_idx').on('events').columns(['account_id', 'created_at']).execute();

  // Read models kept as views are counted (analytics' countView projection): a distinct count
  // or a per-day grouping over every view session took tens of milliseconds per 100 000 views.
  // Unique visitors of an account (e-mail, else IP):
  await db.schema
    .createTable('account_visitors')
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('visitor_key', 'text', (column) => column.notNull())
    .addColumn('first_seen_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('account_visitors_pk', ['account_id', 'visitor_key'])
    .execute();
  await sql`
    insert into account_visitors (account_id, visitor_key, first_seen_at)
    select links.account_id, coalesce(visits.email, visits.ip), min(visits.session_started_at)
    from visits inner join links on links.id = visits.link_id
    where visits.session_started_at is not null
    group by links.account_id, coalesce(visits.email, visits.ip)`.execute(db);
  // Views of an account per UTC day number (epoch ms / 86 400 000):
  await db.schema
    .createTable('account_daily_views')
    .addColumn('account_id', 'integer', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('day', 'integer', (column) => column.notNull())
    .addColumn('views', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('account_daily_views_pk', ['account_id', 'day'])
    .execute();
  await sql`
    insert into account_daily_views (account_id, day, views)
    select links.account_id, visits.session_started_at / 86400000, count(*)
    from visits inner join links on links.id = visits.link_id
    where visits.session_started_at is not null
    group by links.account_id, visits.session_started_at / 86400000`.execute(db);

  // link.expired is recorded once per link: the expiry watcher claims a link by setting this.
  await db.schema.alterTable('links').addColumn('expiry_noticed_at', 'bigint').execute();
  // Links that expired before this release are not news: no burst of stale notifications.
  await sql`update links set expiry_noticed_at = expires_at where expires_at <= ${Date.now()}`.execute(db);
  await db.schema.createIndex('links_expiry_pending_idx').on('links').column('expires_at').where(sql.ref('expiry_noticed_at'), 'is', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('links_expiry_pending_idx').execute();
  await db.schema.alterTable('links').dropColumn('expiry_noticed_at').execute();
  await db.schema.dropTable('account_daily_views').execute();
  await db.schema.dropTable('account_visitors').execute();
  await db.schema.dropIndex('events_account_recent_idx').execute();
}
