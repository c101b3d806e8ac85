import { sql, type ExpressionBuilder } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { Database } from '../../db/types.js';

export const DAY_MS = 86_400_000;

/** Who a view session was: the e-mail when the visitor gave one, else the IP. */
const visitorKey = (eb: ExpressionBuilder<Database, 'visits'>) => eb.fn.coalesce('visits.email', 'visits.ip');

/** View sessions (one per counted view) of a link. */
function linkSessions(db: Executor, linkId: string) {
  return db.selectFrom('visits').where('visits.link_id', '=', linkId).where('visits.session_started_at', 'is not', null);
}

export async function linkTotals(db: Executor, accountId: number, now: number) {
  const row = await db
    .selectFrom('links')
    .select((eb) => [
      eb.fn.countAll<number>().as('totalLinks'),
      eb.fn.coalesce(eb.fn.sum<number>('views'), eb.lit(0)).as('totalViews'),
      eb.fn
        .coalesce(
          eb.fn.sum<number>(
            eb
              .case()
              .when(eb.and([eb('is_active', '=', 1), eb('expires_at', '>', now)]))
              .then(1)
              .else(0)
              .end(),
          ),
          eb.lit(0),
        )
        .as('activeLinks'),
    ])
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return { totalLinks: Number(row.totalLinks), totalViews: Number(row.totalViews), activeLinks: Number(row.activeLinks) };
}

export function mostViewedLinks(db: Executor, accountId: number, limit: number) {
  return db
    .selectFrom('links')
    .select(['id', 'name', 'views'])
    .where('account_id', '=', accountId)
    .where('views', '>', 0)
    .orderBy('views', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Counts a visitor of the account once, whatever link and however often they view; true the first time. */
export async function insertAccountVisitor(db: Executor, accountId: number, visitorKey: string, at: number): Promise<boolean> {
  const result = await db
    .insertInto('account_visitors')
    .values({ account_id: accountId, visitor_key: visitorKey, first_seen_at: at })
    .onConflict((conflict) => conflict.columns(['account_id', 'visitor_key']).doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export type AccountTotal = 'visitors' | 'downloads';

export async function addToAccountTotal(db: Executor, accountId: number, total: AccountTotal): Promise<void> {
  await db
    .insertInto('account_analytics_totals')
    .values({ account_id: accountId, [total]: 1 })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet((eb) => ({ [total]: eb(`account_analytics_totals.${total}`, '+', 1) })))
    .execute();
}

export async function accountTotals(db: Executor, accountId: number): Promise<Record<AccountTotal, number>> {
  const row = await db
    .selectFrom('account_analytics_totals')
    .select(['visitors', 'downloads'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return { visitors: Number(row?.visitors ?? 0), downloads: Number(row?.downloads ?? 0) };
}

export async function addDailyView(db: Executor, accountId: number, day: number): Promise<void> {
  await db
    .insertInto('account_daily_views')
    .values({ account_id: accountId, day, views: 1 })
    .onConflict((conflict) => conflict.columns(['account_id', 'day']).doUpdateSet((eb) => ({ views: eb('account_daily_views.views', '+', 1) })))
    .execute();
}

/** Views per UTC day number from `firstDay` on; days without any are absent. */
export async function viewsPerDay(db: Executor, accountId: number, firstDay: number) {
  const rows = await db
    .selectFrom('account_daily_views')
    .select(['day', 'views'])
    .where('account_id', '=', accountId)
    .where('day', '>=', firstDay)
    .execute();
  return rows.map((row) => ({ day: Number(row.day), views: Number(row.views) }));
}

/** The link's views (view sessions) per UTC day number from `firstDay` on; days without any are absent. */
export async function linkViewsPerDay(db: Executor, linkId: string, firstDay: number) {
  const day = sql<number>`visits.session_started_at / ${sql.lit(DAY_MS)}`;
  const rows = await linkSessions(db, linkId)
    .select((eb) => [day.as('day'), eb.fn.countAll<number>().as('views')])
    .where('visits.session_started_at', '>=', firstDay * DAY_MS)
    .groupBy(day)
    .execute();
  return rows.map((row) => ({ day: Number(row.day), views: Number(row.views) }));
}

export function latestEvents(db: Executor, accountId: number, limit: number) {
  return db
    .selectFrom('events')
    .select(['type', 'link_id', 'payload', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function linkSessionTotals(db: Executor, linkId: string) {
  const row = await linkSessions(db, linkId)
    .select((eb) => [eb.fn.countAll<number>().as('sessions'), eb.fn.count<number>(visitorKey(eb)).distinct().as('visitors')])
    .executeTakeFirstOrThrow();
  return { sessions: Number(row.sessions), visitors: Number(row.visitors) };
}

/** Seconds the link's visitors spent on each page, by page number. */
export async function secondsPerPage(db: Executor, linkId: string) {
  const rows = await db
    .selectFrom('page_views')
    .innerJoin('visits', 'visits.id', 'page_views.visit_id')
    .select((eb) => ['page_views.page as page', eb.fn.sum<number>('page_views.seconds').as('seconds')])
    .where('visits.link_id', '=', linkId)
    .groupBy('page_views.page')
    .orderBy('page_views.page')
    .execute();
  return rows.map((row) => ({ page: row.page, seconds: Number(row.seconds) }));
}

/**
 * One row per visitor of the link (by e-mail, else IP), most recent first: their views, time,
 * how many distinct pages they saw, and the browser of their latest view.
 */
export async function linkVisitors(db: Executor, linkId: string, limit: number) {
  const sessions = linkSessions(db, linkId).select((eb) => [
    visitorKey(eb).as('visitor_key'),
    'visits.email as email',
    'visits.ip as ip',
    'visits.session_started_at as started_at',
    eb
      .selectFrom('page_views')
      .select((inner) => inner.fn.coalesce(inner.fn.sum<number>('page_views.seconds'), inner.lit(0)).as('seconds'))
      .whereRef('page_views.visit_id', '=', 'visits.id')
      .as('seconds'),
  ]);
  const rows = await db
    .selectFrom(sessions.as('session'))
    .select((eb) => [
      'session.visitor_key',
      eb.fn.max('session.email').as('email'),
      eb.fn.max('session.ip').as('ip'),
      eb.fn.countAll<number>().as('views'),
      eb.fn.sum<number>('session.seconds').as('seconds'),
      eb.fn.min<number>('session.started_at').as('first_view_at'),
      eb.fn.max<number>('session.started_at').as('last_view_at'),
    ])
    .groupBy('session.visitor_key')
    .orderBy('last_view_at', 'desc')
    .orderBy('session.visitor_key')
    .limit(limit)
    .execute();
  const lastViews = new Map(rows.map((row) => [row.visitor_key as string, Number(row.last_view_at)]));
  const [pagesSeen, browsers] = await Promise.all([distinctPagesByVisitor(db, linkId), latestUserAgents(db, linkId, lastViews)]);
  return rows.map((row) => ({
    email: row.email,
    ip: row.ip,
    userAgent: browsers.get(row.visitor_key as string) ?? null,
    views: Number(row.views),
    seconds: Number(row.seconds ?? 0),
    pagesSeen: pagesSeen.get(row.visitor_key as string) ?? 0,
    firstViewAt: Number(row.first_view_at),
    lastViewAt: Number(row.last_view_at),
  }));
}

/**
 * The browser of each visitor's latest view: the session that started at their last view, found
 * through the link's (link, start) index rather than by ranking every session of the link.
 */
async function latestUserAgents(db: Executor, linkId: string, lastViews: Map<string, number>): Promise<Map<string, string | null>> {
  if (lastViews.size === 0) return new Map();
  const rows = await linkSessions(db, linkId)
    .select((eb) => [visitorKey(eb).as('visitor_key'), 'visits.user_agent', 'visits.session_started_at'])
    .where('visits.session_started_at', 'in', [...new Set(lastViews.values())])
    // Of two views that started in the same millisecond, the later one's browser is kept.
    .orderBy('visits.id')
    .execute();
  const browsers = new Map<string, string | null>();
  for (const row of rows) {
    const key = row.visitor_key as string;
    if (lastViews.get(key) === Number(row.session_started_at)) browsers.set(key, row.user_agent);
  }
  return browsers;
}

/** How many distinct pages each visitor of the link saw, over all their views. */
async function distinctPagesByVisitor(db: Executor, linkId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom(
      db
        .selectFrom('page_views')
        .innerJoin('visits', 'visits.id', 'page_views.visit_id')
        .select((eb) => [visitorKey(eb).as('visitor_key'), 'page_views.page as page'])
        .where('visits.link_id', '=', linkId)
        .as('seen'),
    )
    .select((eb) => ['seen.visitor_key', eb.fn.count<number>('seen.page').distinct().as('pages')])
    .groupBy('seen.visitor_key')
    .execute();
  return new Map(rows.map((row) => [row.visitor_key as string, Number(row.pages)]));
}
