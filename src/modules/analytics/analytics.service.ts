import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { isoTime } from '../../core/timestamps.js';
import type { AccessRequestRecords } from '../access-requests/access-requests.service.js';
import { visitorLabel, type EventPayload } from '../events/event-types.js';
import type { EventProjection } from '../events/events.service.js';
import type { LinksService } from '../links/links.service.js';
import type { ViewTallies } from '../visits/view-tallies.js';
import {
  DAY_MS,
  accountTotals,
  addDailyView,
  addLinkDailyView,
  addLinkSession,
  addLinkVisitorView,
  addPageSeconds,
  addToAccountTotal,
  addVisitorPageRead,
  insertAccountVisitor,
  latestEvents,
  linkTotals,
  linkViewTotals,
  linkViewsPerDay,
  linkVisitors,
  mostViewedLinks,
  secondsPerPage,
  viewsPerDay,
  type VisitorCursor,
} from './analytics.repo.js';
import { csvByPages } from '../../core/csv.js';

const TOP_LINKS = 10;
const RECENT_ACTIVITY = 20;
const CHART_DAYS = 30;
export const MAX_LISTED_VISITORS = 5000;

/** Visitors read at a time for the CSV. */
export const CSV_PAGE = 1000;

/** A visitor row as the owner sees it: the address masked, the times in ISO 8601. */
function shownVisitor(visitor: Awaited<ReturnType<typeof linkVisitors>>[number]) {
  return {
    visitor: visitorLabel({ ...visitor, emailVerified: visitor.emailVerified ?? undefined }) ?? 'unknown',
    emailVerified: visitor.emailVerified,
    views: visitor.views,
    seconds: visitor.seconds,
    pagesSeen: visitor.pagesSeen,
    userAgent: visitor.userAgent,
    firstViewAt: isoTime(visitor.firstViewAt),
    lastViewAt: isoTime(visitor.lastViewAt),
  };
}

const isoDate = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The UTC day number the charts start on: CHART_DAYS days, today included. */
const firstChartDay = (now: number) => Math.floor(now / DAY_MS) - (CHART_DAYS - 1);

/** The chart's days from `firstDay`, oldest first, each with its views (0 when absent from `perDay`). */
function chartDays(firstDay: number, perDay: Array<{ day: number; views: number }>) {
  const viewsOn = new Map(perDay.map((row) => [row.day, row.views]));
  return Array.from({ length: CHART_DAYS }, (_, index) => ({ date: isoDate(firstDay + index), views: viewsOn.get(firstDay + index) ?? 0 }));
}

/** Counts a view into the account's per-day views and distinct visitors, in the view's own transaction. */
export const countView: EventProjection = async (trx, event, at) => {
  if (event.type !== 'link.viewed') return;
  await addDailyView(trx, event.accountId, Math.floor(at / DAY_MS));
  const visitorKey = event.payload.email ?? event.payload.ip;
  if (visitorKey && (await insertAccountVisitor(trx, event.accountId, visitorKey, at))) await addToAccountTotal(trx, event.accountId, 'visitors');
};

/** Counts a download into the account's totals, in the download's own transaction. */
export const countDownload: EventProjection = async (trx, event) => {
  if (event.type === 'link.downloaded') await addToAccountTotal(trx, event.accountId, 'downloads');
};

/**
 * A link's analytics kept as its views are opened and its pages read, in their transactions:
 * per day, per page and per visitor (e-mail, else IP, as the account counts them), so reading
 * them costs the rows listed rather than every page read of the link.
 */
export const linkTallies: ViewTallies = {
  async viewOpened(trx, view) {
    await addLinkDailyView(trx, view.linkId, Math.floor(view.at / DAY_MS));
    const firstView = await addLinkVisitorView(trx, { ...view, visitorKey: view.email ?? view.ip });
    await addLinkSession(trx, view.linkId, firstView);
  },
  async pageRead(trx, read) {
    await addPageSeconds(trx, read.linkId, read.page, read.seconds);
    await addVisitorPageRead(trx, { ...read, visitorKey: read.email ?? read.ip });
  },
};

/** Numbers for the owner: the whole account, or one link. Views are counted view sessions. */
export function createAnalyticsService(deps: {
  db: Db;
  clock: Clock;
  links: Pick<LinksService, 'ownLink'>;
  accessRequests: Pick<AccessRequestRecords, 'pendingCount'>;
}) {
  const { db, clock, links, accessRequests } = deps;

  /** The link's numbers, with its `listed` latest visitors. */
  async function forLink(accountId: number, linkId: string, listed = MAX_LISTED_VISITORS) {
    const link = await links.ownLink(accountId, linkId, { live: false });
    const firstDay = firstChartDay(clock());
    const [sessions, pages, visitors, perDay] = await Promise.all([
      linkViewTotals(db, link.id),
      secondsPerPage(db, link.id),
      linkVisitors(db, link.id, listed),
      linkViewsPerDay(db, link.id, firstDay),
    ]);
    const totalSeconds = pages.reduce((sum, page) => sum + page.seconds, 0);
    return {
      link: { id: link.id, name: link.name },
      views: link.views,
      blockedAttempts: link.blocked_attempts,
      uniqueVisitors: sessions.visitors,
      totalSeconds,
      averageSeconds: sessions.sessions > 0 ? Math.round(totalSeconds / sessions.sessions) : 0,
      pages,
      visitors: visitors.map(shownVisitor),
      viewsByDay: chartDays(firstDay, perDay),
    };
  }

  return {
    async global(accountId: number) {
      const now = clock();
      const firstDay = firstChartDay(now);
      const [totals, counted, pendingRequests, topLinks, recent, perDay] = await Promise.all([
        linkTotals(db, accountId, now),
        accountTotals(db, accountId),
        accessRequests.pendingCount(accountId),
        mostViewedLinks(db, accountId, TOP_LINKS),
        latestEvents(db, accountId, RECENT_ACTIVITY),
        viewsPerDay(db, accountId, firstDay),
      ]);
      return {
        metrics: { ...totals, uniqueVisitors: counted.visitors, pendingRequests, totalDownloads: counted.downloads },
        topLinks,
        recentActivity: recent.map((event) => {
          const payload = JSON.parse(event.payload) as EventPayload;
          return {
            type: event.type,
            linkId: event.link_id,
            linkName: payload.linkName,
            visitor: visitorLabel(payload),
            ...(payload.limit && { limit: payload.limit }),
            at: isoTime(Number(event.created_at)),
          };
        }),
        charts: {
          viewsByDay: chartDays(firstDay, perDay),
        },
      };
    },

    forLink,

    /**
     * Every visitor of the link as spreadsheet-safe CSV lines, latest first, read a page at a
     * time while the answer is sent; the link is checked before the first line.
     */
    async linkVisitorsCsv(accountId: number, linkId: string): Promise<AsyncIterable<string>> {
      const link = await links.ownLink(accountId, linkId, { live: false });
      return csvByPages({
        header: ['visitor', 'views', 'seconds', 'first_view_at', 'last_view_at', 'pages_seen', 'user_agent', 'email_verified'],
        pageSize: CSV_PAGE,
        readPage: (after: VisitorCursor | undefined) => linkVisitors(db, link.id, CSV_PAGE, after),
        cursorAfter: (last) => ({ lastViewAt: last.lastViewAt, visitorKey: last.visitorKey }),
        cells: (row) => {
          const visitor = shownVisitor(row);
          return [
            visitor.visitor,
            visitor.views,
            visitor.seconds,
            visitor.firstViewAt,
            visitor.lastViewAt,
            visitor.pagesSeen,
            visitor.userAgent,
            visitor.emailVerified === null ? null : String(visitor.emailVerified),
          ];
        },
      });
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
