import type { Executor } from '../../db/executor.js';

export const DAY_MS = 86_400_000;

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

/** A link's view sessions and distinct visitors. */
export async function linkViewTotals(db: Executor, linkId: string) {
  const row = await db.selectFrom('link_view_totals').select(['sessions', 'visitors']).where('link_id', '=', linkId).executeTakeFirst();
  return { sessions: Number(row?.sessions ?? 0), visitors: Number(row?.visitors ?? 0) };
}

/** The link's views per UTC day number from `firstDay` on; days without any are absent. */
export async function linkViewsPerDay(db: Executor, linkId: string, firstDay: number) {
  const rows = await db.selectFrom('link_daily_views').select(['day', 'views']).where('link_id', '=', linkId).where('day', '>=', firstDay).execute();
  return rows.map((row) => ({ day: Number(row.day), views: Number(row.views) }));
}

/** Seconds the link's visitors spent on each page, by page number. */
export async function secondsPerPage(db: Executor, linkId: string) {
  const rows = await db.selectFrom('link_page_totals').select(['page', 'seconds']).where('link_id', '=', linkId).orderBy('page').execute();
  return rows.map((row) => ({ page: row.page, seconds: Number(row.seconds) }));
}

/** Where a page of a link's visitors ended: the next page starts after this visitor. */
export interface VisitorCursor {
  lastViewAt: number;
  visitorKey: string;
}

/**
 * The link's visitors (by e-mail, else IP), most recent first, from after `after` on: their
 * views, time, how many distinct pages they saw, and the browser of their latest view.
 */
export async function linkVisitors(db: Executor, linkId: string, limit: number, after?: VisitorCursor) {
  let query = db
    .selectFrom('link_visitors')
    .select(['visitor_key', 'email', 'ip', 'user_agent', 'views', 'seconds', 'pages_seen', 'first_view_at', 'last_view_at', 'unverified_views'])
    .where('link_id', '=', linkId);
  if (after) {
    // A range on the index's second column, then the ties of its last value already listed left out.
    query = query
      .where('last_view_at', '<=', after.lastViewAt)
      .where((eb) => eb.not(eb.and([eb('last_view_at', '=', after.lastViewAt), eb('visitor_key', '<=', after.visitorKey)])));
  }
  const rows = await query.orderBy('last_view_at', 'desc').orderBy('visitor_key').limit(limit).execute();
  return rows.map((row) => ({
    visitorKey: row.visitor_key,
    email: row.email,
    // Every view proved the address; unknown for a row whose earlier views predate the count.
    emailVerified: row.email === null || row.unverified_views === null ? null : Number(row.unverified_views) === 0,
    ip: row.ip,
    userAgent: row.user_agent,
    views: Number(row.views),
    seconds: Number(row.seconds),
    pagesSeen: Number(row.pages_seen),
    firstViewAt: Number(row.first_view_at),
    lastViewAt: Number(row.last_view_at),
  }));
}

export async function addLinkDailyView(db: Executor, linkId: string, day: number): Promise<void> {
  await db
    .insertInto('link_daily_views')
    .values({ link_id: linkId, day, views: 1 })
    .onConflict((conflict) => conflict.columns(['link_id', 'day']).doUpdateSet((eb) => ({ views: eb('link_daily_views.views', '+', 1) })))
    .execute();
}

export async function addLinkSession(db: Executor, linkId: string, newVisitor: boolean): Promise<void> {
  const visitors = newVisitor ? 1 : 0;
  await db
    .insertInto('link_view_totals')
    .values({ link_id: linkId, sessions: 1, visitors })
    .onConflict((conflict) =>
      conflict.column('link_id').doUpdateSet((eb) => ({
        sessions: eb('link_view_totals.sessions', '+', 1),
        visitors: eb('link_view_totals.visitors', '+', visitors),
      })),
    )
    .execute();
}

export interface LinkVisitorView {
  linkId: string;
  visitorKey: string;
  email: string | null;
  emailVerified: boolean;
  ip: string;
  userAgent: string | null;
  at: number;
}

/**
 * Counts a view of the link's visitor; true when it is their first. Their IP and browser are their
 * latest view's (their e-mail, when they gave one, is their key); a view under an address nobody
 * proved is counted apart, so the row never reads as proved once one view only typed it.
 */
export async function addLinkVisitorView(db: Executor, view: LinkVisitorView): Promise<boolean> {
  const unverified = view.email !== null && !view.emailVerified ? 1 : 0;
  const inserted = await db
    .insertInto('link_visitors')
    .values({
      link_id: view.linkId,
      visitor_key: view.visitorKey,
      email: view.email,
      ip: view.ip,
      user_agent: view.userAgent,
      views: 1,
      seconds: 0,
      pages_seen: 0,
      first_view_at: view.at,
      last_view_at: view.at,
      unverified_views: unverified,
    })
    .onConflict((conflict) => conflict.columns(['link_id', 'visitor_key']).doNothing())
    .executeTakeFirst();
  if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return true;
  await db
    .updateTable('link_visitors')
    .set((eb) => {
      const latest = eb('last_view_at', '<=', view.at);
      return {
        views: eb('views', '+', 1),
        ...(unverified ? { unverified_views: eb(eb.fn.coalesce('unverified_views', eb.lit(0)), '+', 1) } : {}),
        first_view_at: eb.case().when('first_view_at', '>', view.at).then(view.at).else(eb.ref('first_view_at')).end(),
        last_view_at: eb.case().when(latest).then(view.at).else(eb.ref('last_view_at')).end(),
        ip: eb.case().when(latest).then(view.ip).else(eb.ref('ip')).end(),
        user_agent: eb.case().when(latest).then(view.userAgent).else(eb.ref('user_agent')).end(),
      };
    })
    .where('link_id', '=', view.linkId)
    .where('visitor_key', '=', view.visitorKey)
    .execute();
  return false;
}

export async function addPageSeconds(db: Executor, linkId: string, page: number, seconds: number): Promise<void> {
  await db
    .insertInto('link_page_totals')
    .values({ link_id: linkId, page, seconds })
    .onConflict((conflict) => conflict.columns(['link_id', 'page']).doUpdateSet((eb) => ({ seconds: eb('link_page_totals.seconds', '+', seconds) })))
    .execute();
}

/** Adds a page read to the link's visitor: their seconds, and the page to those they have seen. */
export async function addVisitorPageRead(db: Executor, read: { linkId: string; visitorKey: string; page: number; seconds: number }): Promise<void> {
  const firstTime = await db
    .insertInto('link_visitor_pages')
    .values({ link_id: read.linkId, visitor_key: read.visitorKey, page: read.page })
    .onConflict((conflict) => conflict.columns(['link_id', 'visitor_key', 'page']).doNothing())
    .executeTakeFirst();
  const newPages = (firstTime.numInsertedOrUpdatedRows ?? 0n) > 0n ? 1 : 0;
  await db
    .updateTable('link_visitors')
    .set((eb) => ({ seconds: eb('seconds', '+', read.seconds), pages_seen: eb('pages_seen', '+', newPages) }))
    .where('link_id', '=', read.linkId)
    .where('visitor_key', '=', read.visitorKey)
    .execute();
}
