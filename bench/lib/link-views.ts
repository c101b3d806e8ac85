import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';

const DAY = 86_400_000;
const PAGES = 12;
const BROWSERS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
];

export interface ViewShape {
  /** view sessions of the link */
  views: number;
  /** distinct visitors sharing them (4 in 10 known by e-mail, the others by IP) */
  visitors: number;
  /** pages each view reads, of the document's 12 */
  pagesPerView: number;
}

interface Visitor {
  email: string | null;
  ip: string;
  userAgent: string;
  views: number;
  seconds: number;
  pages: Set<number>;
  first: number;
  last: number;
}

/**
 * A 12-page PDF link of the account with `shape.views` view sessions over the last 60 days and
 * their page reads, written as the app writes them: the visits and page views, and the tallies
 * analytics keeps beside them in the same transactions (per link and day, page, visitor and
 * visitor's page). Inserted straight into the SQLite file before the server starts. Returns
 * the link's id.
 */
export function seedLinkViews(file: string, accountId: number, name: string, shape: ViewShape, now: number): string {
  const linkId = randomBytes(16).toString('base64url').replace(/[-_]/g, 'x').slice(0, 22);
  const db = new SQLite(file);
  try {
    db.prepare(
      `INSERT INTO links (id, account_id, kind, name, mime, version, blob_key, wrapped_key, size, sha256, created_at, expires_at, views, last_viewed_at)
       VALUES (?, ?, 'file', ?, 'application/pdf', 1, ?, ?, 100000, ?, ?, ?, ?, ?)`,
    ).run(
      linkId,
      accountId,
      name,
      `links/${linkId}/v1`,
      randomBytes(60).toString('base64'),
      randomBytes(32).toString('hex'),
      now - 61 * DAY,
      now + 30 * DAY,
      shape.views,
      now,
    );
    const insertVisit = db.prepare(
      `INSERT INTO visits (token_hash, link_id, email, ip, user_agent, view_id, created_at, expires_at, session_started_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertPageView = db.prepare('INSERT INTO page_views (visit_id, page, seconds, created_at) VALUES (?, ?, ?, ?)');
    const visitors: Visitor[] = Array.from({ length: shape.visitors }, (_, n) => ({
      email: n % 10 < 4 ? `reader${n}@example.com` : null,
      ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      userAgent: BROWSERS[n % BROWSERS.length]!,
      views: 0,
      seconds: 0,
      pages: new Set(),
      first: Infinity,
      last: 0,
    }));
    const viewsOnDay = new Map<number, number>();
    const secondsOnPage = new Map<number, number>();
    // Every visitor views at least once; the remaining views go to visitors at random.
    const viewer = (view: number) => (view < shape.visitors ? view : Math.floor(Math.random() * shape.visitors));
    db.transaction(() => {
      for (let view = 0; view < shape.views; view++) {
        const visitor = visitors[viewer(view)]!;
        const at = now - Math.floor(Math.random() * 60 * DAY);
        const visitId = insertVisit.run(
          `bench-${linkId}-${view}`,
          linkId,
          visitor.email,
          visitor.ip,
          visitor.userAgent,
          view.toString(36).toUpperCase(),
          at,
          at + 3_600_000,
          at,
        ).lastInsertRowid;
        visitor.views++;
        visitor.first = Math.min(visitor.first, at);
        if (at >= visitor.last) visitor.last = at;
        const day = Math.floor(at / DAY);
        viewsOnDay.set(day, (viewsOnDay.get(day) ?? 0) + 1);
        for (let read = 0; read < shape.pagesPerView; read++) {
          const page = 1 + ((view + read) % PAGES);
          const seconds = 2 + ((view * 7 + read * 13) % 40);
          insertPageView.run(visitId, page, seconds, at + read * 30_000);
          visitor.seconds += seconds;
          visitor.pages.add(page);
          secondsOnPage.set(page, (secondsOnPage.get(page) ?? 0) + seconds);
        }
      }
    })();
    db.transaction(() => {
      const dayRow = db.prepare('INSERT INTO link_daily_views (link_id, day, views) VALUES (?, ?, ?)');
      for (const [day, views] of viewsOnDay) dayRow.run(linkId, day, views);
      const pageRow = db.prepare('INSERT INTO link_page_totals (link_id, page, seconds) VALUES (?, ?, ?)');
      for (const [page, seconds] of secondsOnPage) pageRow.run(linkId, page, seconds);
      const visitorRow = db.prepare(
        `INSERT INTO link_visitors (link_id, visitor_key, email, ip, user_agent, views, seconds, pages_seen, first_view_at, last_view_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const visitorPageRow = db.prepare('INSERT INTO link_visitor_pages (link_id, visitor_key, page) VALUES (?, ?, ?)');
      for (const visitor of visitors) {
        const key = visitor.email ?? visitor.ip;
        visitorRow.run(
          linkId,
          key,
          visitor.email,
          visitor.ip,
          visitor.userAgent,
          visitor.views,
          visitor.seconds,
          visitor.pages.size,
          visitor.first,
          visitor.last,
        );
        for (const page of visitor.pages) visitorPageRow.run(linkId, key, page);
      }
      db.prepare('INSERT INTO link_view_totals (link_id, sessions, visitors) VALUES (?, ?, ?)').run(linkId, shape.views, shape.visitors);
    })();
  } finally {
    db.close();
  }
  return linkId;
}
