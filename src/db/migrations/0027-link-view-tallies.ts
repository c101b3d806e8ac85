import { sql, type Kysely } from 'kysely';

// Issue 21: a link's analytics, refreshed every 5 s while its screen is open, grouped every
// view session and page read of the link on each call: 2.5 s for a link of 100 000 views
// (`link-analytics` bench). These tallies are kept in the view's and the page read's own
// transactions (analytics' link tallies), so a call reads one row per listed visitor, page
// and day. Existing views are counted in once here.
export async function up(db: Kysely<unknown>): Promise<void> {
  const linkColumn = (name: string) =>
    db.schema.createTable(name).addColumn('link_id', 'text', (column) => column.notNull().references('links.id').onDelete('cascade'));

  await linkColumn('link_view_totals')
    .addColumn('sessions', 'integer', (column) => column.notNull())
    .addColumn('visitors', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('link_view_totals_pk', ['link_id'])
    .execute();
  await linkColumn('link_daily_views')
    .addColumn('day', 'integer', (column) => column.notNull())
    .addColumn('views', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('link_daily_views_pk', ['link_id', 'day'])
    .execute();
  await linkColumn('link_page_totals')
    .addColumn('page', 'integer', (column) => column.notNull())
    .addColumn('seconds', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('link_page_totals_pk', ['link_id', 'page'])
    .execute();
  // A visitor is the e-mail they gave, else their IP (as in the account's visitors).
  await linkColumn('link_visitors')
    .addColumn('visitor_key', 'text', (column) => column.notNull())
    .addColumn('email', 'text')
    .addColumn('ip', 'text', (column) => column.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('views', 'integer', (column) => column.notNull())
    .addColumn('seconds', 'bigint', (column) => column.notNull())
    .addColumn('pages_seen', 'integer', (column) => column.notNull())
    .addColumn('first_view_at', 'bigint', (column) => column.notNull())
    .addColumn('last_view_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('link_visitors_pk', ['link_id', 'visitor_key'])
    .execute();
  await db.schema.createIndex('link_visitors_latest_idx').on('link_visitors').columns(['link_id', 'last_view_at desc', 'visitor_key']).execute();
  await linkColumn('link_visitor_pages')
    .addColumn('visitor_key', 'text', (column) => column.notNull())
    .addColumn('page', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('link_visitor_pages_pk', ['link_id', 'visitor_key', 'page'])
    .execute();

  await sql`
    insert into link_daily_views (link_id, day, views)
    select link_id, session_started_at / 86400000, count(*)
    from visits where session_started_at is not null
    group by link_id, session_started_at / 86400000`.execute(db);
  await sql`
    insert into link_page_totals (link_id, page, seconds)
    select visits.link_id, page_views.page, sum(page_views.seconds)
    from page_views inner join visits on visits.id = page_views.visit_id
    group by visits.link_id, page_views.page`.execute(db);
  await sql`
    insert into link_visitor_pages (link_id, visitor_key, page)
    select distinct visits.link_id, coalesce(visits.email, visits.ip), page_views.page
    from page_views inner join visits on visits.id = page_views.visit_id`.execute(db);
  // Who a visitor was (e-mail, IP, browser) is their latest view's; of two views begun in the
  // same millisecond, the later visit's.
  await sql`
    insert into link_visitors (link_id, visitor_key, email, ip, user_agent, views, seconds, pages_seen, first_view_at, last_view_at)
    select link_id, visitor_key, email, ip, user_agent, views, 0, 0, first_view_at, last_view_at from (
      select link_id, coalesce(email, ip) as visitor_key, email, ip, user_agent,
        count(*) over visitor as views,
        min(session_started_at) over visitor as first_view_at,
        max(session_started_at) over visitor as last_view_at,
        row_number() over (partition by link_id, coalesce(email, ip) order by session_started_at desc, id desc) as latest
      from visits
      where session_started_at is not null
      window visitor as (partition by link_id, coalesce(email, ip))
    ) ranked
    where latest = 1`.execute(db);
  await sql`
    update link_visitors set seconds = reads.seconds
    from (
      select visits.link_id, coalesce(visits.email, visits.ip) as visitor_key, sum(page_views.seconds) as seconds
      from page_views inner join visits on visits.id = page_views.visit_id
      group by visits.link_id, coalesce(visits.email, visits.ip)
    ) as reads
    where link_visitors.link_id = reads.link_id and link_visitors.visitor_key = reads.visitor_key`.execute(db);
  await sql`
    update link_visitors set pages_seen = seen.pages
    from (select link_id, visitor_key, count(*) as pages from link_visitor_pages group by link_id, visitor_key) as seen
    where link_visitors.link_id = seen.link_id and link_visitors.visitor_key = seen.visitor_key`.execute(db);
  await sql`
    insert into link_view_totals (link_id, sessions, visitors)
    select link_id, sum(views), count(*) from link_visitors group by link_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['link_visitor_pages', 'link_visitors', 'link_page_totals', 'link_daily_views', 'link_view_totals']) {
    await db.schema.dropTable(table).execute();
  }
}
