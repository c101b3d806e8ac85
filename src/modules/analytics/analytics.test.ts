import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { startApp, type TestApp } from '../../../test/helpers/app.js';
import { createLink, downloadOriginal, downloadToken } from '../../../test/helpers/files.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';
import { csvByPages, type CsvCell } from '../../core/csv.js';
import { CSV_PAGE, MAX_LISTED_VISITORS, linkTallies } from './analytics.service.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const TODAY = Date.UTC(2025, 5, 15); // 2025-06-15, 00:00 UTC
const iso = (epochMs: number) => new Date(epochMs).toISOString();

const FIREFOX_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_ON_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';

/** Writes the rows a real view writes (visit, counter, link.viewed event, the link's tallies) at the clock's time. */
function seeder(app: TestApp, clock: { now: number }) {
  const { db } = app.runtime.database;
  const { events } = app.runtime.services;
  return {
    async link(accountId: number, name: string, options: { active?: boolean; expiresAt?: number; requiresApproval?: boolean } = {}) {
      const id = randomBytes(11).toString('hex');
      await db
        .insertInto('links')
        .values({
          id,
          account_id: accountId,
          kind: 'file',
          name,
          mime: 'application/pdf',
          created_at: TODAY - 40 * DAY,
          expires_at: options.expiresAt ?? TODAY + 7 * DAY,
          // An expired link was already noticed, as the expiry job would have done. Left for the job,
          // it would record link.expired at whatever time its own timer fires during the seeding.
          expiry_noticed_at: options.expiresAt !== undefined && options.expiresAt <= TODAY ? options.expiresAt : null,
          is_active: options.active === false ? 0 : 1,
          requires_approval: options.requiresApproval ? 1 : 0,
        })
        .execute();
      return { id, accountId, name };
    },
    async view(
      link: { id: string; accountId: number; name: string },
      at: number,
      who: { email?: string; ip: string; userAgent?: string },
      pages: Array<[number, number]> = [],
    ) {
      clock.now = at;
      await db.transaction().execute(async (trx) => {
        const visit = await trx
          .insertInto('visits')
          .values({
            token_hash: randomBytes(16).toString('hex'),
            link_id: link.id,
            email: who.email ?? null,
            ip: who.ip,
            user_agent: who.userAgent ?? null,
            created_at: at,
            expires_at: at + HOUR,
            session_started_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .updateTable('links')
          .set((eb) => ({ views: eb('views', '+', 1) }))
          .where('id', '=', link.id)
          .execute();
        await linkTallies.viewOpened(trx, {
          linkId: link.id,
          email: who.email ?? null,
          emailVerified: true,
          ip: who.ip,
          userAgent: who.userAgent ?? null,
          at,
        });
        for (const [page, seconds] of pages) {
          await trx.insertInto('page_views').values({ visit_id: visit.id, page, seconds, created_at: at }).execute();
          await linkTallies.pageRead(trx, { linkId: link.id, email: who.email ?? null, ip: who.ip, page, seconds });
        }
        await events.record(trx, {
          accountId: link.accountId,
          type: 'link.viewed',
          linkId: link.id,
          payload: { linkName: link.name, email: who.email ?? null, ip: who.ip },
        });
      });
    },
    async download(link: { id: string; accountId: number; name: string }, at: number) {
      clock.now = at;
      await events.record(db, { accountId: link.accountId, type: 'link.downloaded', linkId: link.id, payload: { linkName: link.name } });
    },
    async accessRequest(linkId: string, status: 'pending' | 'approved') {
      await db
        .insertInto('access_requests')
        .values({ link_id: linkId, email: 'x@example.com', visitor_ip: '192.0.2.1', status, created_at: TODAY })
        .execute();
    },
  };
}

test('global and per-link analytics on a seeded data set', async (t) => {
  const clock = { now: TODAY };
  const app = await startApp(t, { clock: () => clock.now });
  const a = await app.createAccount('professional');
  const b = await app.createAccount('professional');
  const seed = seeder(app, clock);

  const alpha = await seed.link(a.accountId, 'alpha.pdf', { requiresApproval: true });
  const beta = await seed.link(a.accountId, 'beta.pdf', { active: false });
  await seed.link(a.accountId, 'gamma.pdf', { expiresAt: TODAY - DAY });
  await seed.view(alpha, TODAY - 30 * DAY + 9 * HOUR, { email: 'bob@example.com', ip: '198.51.100.2' }); // before the chart's first day
  await seed.view(alpha, TODAY - 29 * DAY + 9 * HOUR, { ip: '203.0.113.7' });
  await seed.view(beta, TODAY - 3 * DAY + 9 * HOUR, { email: '=1+2@evil.com', ip: '192.0.2.9', userAgent: '=HYPERLINK("http://evil.example")' });
  await seed.view(beta, TODAY - 2 * DAY + 8 * HOUR, { email: 'ann@example.com', ip: '192.0.2.1' });
  await seed.view(beta, TODAY - 2 * DAY + 12 * HOUR, { ip: '2001:db8::1' });
  await seed.view(alpha, TODAY - DAY + 9 * HOUR, { email: 'ann@example.com', ip: '192.0.2.1', userAgent: FIREFOX_ON_LINUX }, [[1, 10]]);
  await seed.view(alpha, TODAY - DAY + 11 * HOUR, { ip: '203.0.113.7' }, [[1, 5]]);
  await seed.view(alpha, TODAY + 10 * HOUR, { email: 'ann@example.com', ip: '192.0.2.50', userAgent: SAFARI_ON_IPHONE }, [
    [1, 30],
    [2, 15],
  ]);
  await seed.download(alpha, TODAY + 11 * HOUR);
  await seed.download(beta, TODAY + 11 * HOUR + 1);
  await seed.accessRequest(alpha.id, 'pending');
  await seed.accessRequest(alpha.id, 'pending');
  await seed.accessRequest(alpha.id, 'approved');
  // Account B's activity must not show in A's numbers.
  const other = await seed.link(b.accountId, 'other.pdf');
  await seed.view(other, TODAY + 11 * HOUR, { email: 'carol@example.com', ip: '192.0.2.77' });
  await seed.download(other, TODAY + 11 * HOUR);
  clock.now = TODAY + 12 * HOUR;

  const global = await a.http.get('/api/analytics/global');
  assert.equal(global.status, 200);
  assert.deepEqual(global.body.metrics, { totalViews: 8, uniqueVisitors: 5, totalLinks: 3, activeLinks: 1, pendingRequests: 2, totalDownloads: 2 });
  assert.deepEqual(global.body.topLinks, [
    { id: alpha.id, name: 'alpha.pdf', views: 5 },
    { id: beta.id, name: 'beta.pdf', views: 3 },
  ]);
  const viewsByDay = global.body.charts.viewsByDay as Array<{ date: string; views: number }>;
  assert.equal(viewsByDay.length, 30);
  assert.deepEqual(viewsByDay[0], { date: '2025-05-17', views: 1 });
  assert.deepEqual(viewsByDay.slice(-4), [
    { date: '2025-06-12', views: 1 },
    { date: '2025-06-13', views: 2 },
    { date: '2025-06-14', views: 2 },
    { date: '2025-06-15', views: 1 },
  ]);
  assert.equal(
    viewsByDay.reduce((sum, day) => sum + day.views, 0),
    7,
    'the view of 30 days ago is outside the chart',
  );
  const activity = global.body.recentActivity as Array<Record<string, unknown>>;
  assert.equal(activity.length, 10);
  assert.deepEqual(activity.slice(0, 4), [
    { type: 'link.downloaded', linkId: beta.id, linkName: 'beta.pdf', visitor: null, at: iso(TODAY + 11 * HOUR + 1) },
    { type: 'link.downloaded', linkId: alpha.id, linkName: 'alpha.pdf', visitor: null, at: iso(TODAY + 11 * HOUR) },
    { type: 'link.viewed', linkId: alpha.id, linkName: 'alpha.pdf', visitor: 'ann@example.com', at: iso(TODAY + 10 * HOUR) },
    { type: 'link.viewed', linkId: alpha.id, linkName: 'alpha.pdf', visitor: '203.0.113.x', at: iso(TODAY - DAY + 11 * HOUR) },
  ]);
  assert.equal(activity[5]!.visitor, '2001:db8:…');
  assert.ok(!JSON.stringify(global.body).includes('203.0.113.7'), 'IP addresses are only shown masked');

  const perLink = await a.http.get(`/api/links/${alpha.id}/analytics`);
  assert.equal(perLink.status, 200);
  const { viewsByDay: alphaDays, ...alphaTotals } = perLink.body;
  // The link's own chart: bob's view falls before its first day, like the account's.
  assert.equal(alphaDays.length, 30);
  assert.deepEqual(alphaDays[0], { date: '2025-05-17', views: 1 });
  assert.deepEqual(alphaDays.slice(-2), [
    { date: '2025-06-14', views: 2 },
    { date: '2025-06-15', views: 1 },
  ]);
  assert.equal(
    alphaDays.reduce((sum: number, day: { views: number }) => sum + day.views, 0),
    4,
  );
  assert.deepEqual(alphaTotals, {
    link: { id: alpha.id, name: 'alpha.pdf' },
    views: 5,
    blockedAttempts: 0,
    uniqueVisitors: 3,
    totalSeconds: 60,
    averageSeconds: 12,
    pages: [
      { page: 1, seconds: 45 },
      { page: 2, seconds: 15 },
    ],
    visitors: [
      // Ann saw page 1 twice and page 2 once: two pages; her latest view was on the iPhone.
      {
        visitor: 'ann@example.com',
        emailVerified: true,
        views: 2,
        seconds: 55,
        pagesSeen: 2,
        userAgent: SAFARI_ON_IPHONE,
        firstViewAt: iso(TODAY - DAY + 9 * HOUR),
        lastViewAt: iso(TODAY + 10 * HOUR),
      },
      {
        visitor: '203.0.113.x',
        emailVerified: null,
        views: 2,
        seconds: 5,
        pagesSeen: 1,
        userAgent: null,
        firstViewAt: iso(TODAY - 29 * DAY + 9 * HOUR),
        lastViewAt: iso(TODAY - DAY + 11 * HOUR),
      },
      {
        visitor: 'bob@example.com',
        emailVerified: true,
        views: 1,
        seconds: 0,
        pagesSeen: 0,
        userAgent: null,
        firstViewAt: iso(TODAY - 30 * DAY + 9 * HOUR),
        lastViewAt: iso(TODAY - 30 * DAY + 9 * HOUR),
      },
    ],
  });

  // The dashboard asks for the latest visitors only; the totals still count them all.
  const latest = (await a.http.get(`/api/links/${alpha.id}/analytics?visitors=1`)).body;
  assert.deepEqual(
    latest.visitors.map((visitor: { visitor: string }) => visitor.visitor),
    ['ann@example.com'],
  );
  assert.equal(latest.uniqueVisitors, 3);
  assert.deepEqual((await a.http.get(`/api/links/${alpha.id}/analytics?visitors=0`)).body.visitors, []);
  for (const wrong of ['5001', '-1', 'all']) assert.equal((await a.http.get(`/api/links/${alpha.id}/analytics?visitors=${wrong}`)).status, 400);

  const csv = await a.http.get(`/api/links/${beta.id}/analytics?format=csv`);
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type')!, /^text\/csv/);
  assert.match(csv.headers.get('content-disposition')!, new RegExp(`^attachment; filename="analytics-${beta.id}\\.csv"`));
  assert.equal(
    csv.body,
    'visitor,views,seconds,first_view_at,last_view_at,pages_seen,user_agent,email_verified\r\n' +
      `2001:db8:…,1,0,${iso(TODAY - 2 * DAY + 12 * HOUR)},${iso(TODAY - 2 * DAY + 12 * HOUR)},0,,\r\n` +
      `ann@example.com,1,0,${iso(TODAY - 2 * DAY + 8 * HOUR)},${iso(TODAY - 2 * DAY + 8 * HOUR)},0,,true\r\n` +
      `'=1+2@evil.com,1,0,${iso(TODAY - 3 * DAY + 9 * HOUR)},${iso(TODAY - 3 * DAY + 9 * HOUR)},0,"'=HYPERLINK(""http://evil.example"")",true\r\n`,
  );
  assert.equal((await a.http.get(`/api/links/${beta.id}/analytics?format=xml`)).status, 400);

  // Tenancy: B sees only its own numbers, and none of A's links.
  const theirs = await b.http.get('/api/analytics/global');
  assert.deepEqual(theirs.body.metrics, { totalViews: 1, uniqueVisitors: 1, totalLinks: 1, activeLinks: 1, pendingRequests: 0, totalDownloads: 1 });
  assert.deepEqual(theirs.body.topLinks, [{ id: other.id, name: 'other.pdf', views: 1 }]);
  assert.deepEqual(
    theirs.body.recentActivity.map((event: { linkId: string }) => event.linkId),
    [other.id, other.id],
  );
  assert.equal((await b.http.get(`/api/links/${alpha.id}/analytics`)).status, 404);
  assert.equal((await b.http.get(`/api/links/${alpha.id}/analytics?format=csv`)).status, 404);
});

test('analytics follow real visits: views, time per page, downloads, recent activity', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const empty = await http.get('/api/analytics/global');
  assert.deepEqual(empty.body.metrics, { totalViews: 0, uniqueVisitors: 0, totalLinks: 0, activeLinks: 0, pendingRequests: 0, totalDownloads: 0 });
  assert.deepEqual(empty.body.topLinks, []);
  assert.ok(empty.body.charts.viewsByDay.every((day: { views: number }) => day.views === 0));
  assert.equal(empty.body.charts.viewsByDay.at(-1).date, new Date().toISOString().slice(0, 10));

  const id = await createLink(http, 'hello', 'hello.txt');
  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${id}`);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 7 })).status, 204);
  assert.equal((await visitor.postJson(`/v/${id}/track`, { page: 1, seconds: 3 })).status, 204);
  await new VisitorClient(app.url).get(`/v/${id}`);
  assert.equal((await downloadOriginal(app.url, id, await downloadToken(http, id))).response.status, 200);

  const global = (await http.get('/api/analytics/global')).body;
  assert.deepEqual(global.metrics, { totalViews: 2, uniqueVisitors: 1, totalLinks: 1, activeLinks: 1, pendingRequests: 0, totalDownloads: 1 });
  assert.deepEqual(global.topLinks, [{ id, name: 'hello.txt', views: 2 }]);
  assert.equal(global.charts.viewsByDay.at(-1).views, 2);
  assert.deepEqual(
    global.recentActivity.map((event: { type: string; visitor: string | null }) => [event.type, event.visitor]),
    [
      ['link.downloaded', null],
      ['link.viewed', '127.0.0.x'],
      ['link.viewed', '127.0.0.x'],
    ],
  );

  const perLink = (await http.get(`/api/links/${id}/analytics`)).body;
  assert.deepEqual(
    {
      views: perLink.views,
      uniqueVisitors: perLink.uniqueVisitors,
      totalSeconds: perLink.totalSeconds,
      averageSeconds: perLink.averageSeconds,
      pages: perLink.pages,
    },
    { views: 2, uniqueVisitors: 1, totalSeconds: 10, averageSeconds: 5, pages: [{ page: 1, seconds: 10 }] },
  );
  assert.deepEqual(
    perLink.visitors.map((row: { visitor: string; views: number; seconds: number }) => [row.visitor, row.views, row.seconds]),
    [['127.0.0.x', 2, 10]],
  );
  assert.equal((await http.get('/api/links/ThisLinkDoesNotExist1/analytics')).status, 404);
});

test('the CSV lists every visitor of a link, however many, latest first', async (t) => {
  const clock = { now: TODAY };
  const app = await startApp(t, { clock: () => clock.now });
  const { accountId, http } = await app.createAccount('professional');
  const link = await seeder(app, clock).link(accountId, 'popular.pdf');
  // More than the JSON ever lists, over several pages of the reading. Views begun in the same
  // minute tie on their time, and a tie straddles each page's end. Written straight into the
  // visitors' tallies, the rows the CSV reads, a thousand at a time.
  const readers = MAX_LISTED_VISITORS + CSV_PAGE / 2;
  const lastViewOf = (n: number) => TODAY - DAY + Math.floor(n / 7) * 60_000;
  for (let from = 0; from < readers; from += 1000) {
    await app.runtime.database.db
      .insertInto('link_visitors')
      .values(
        Array.from({ length: Math.min(1000, readers - from) }, (_, k) => {
          const n = from + k;
          return {
            link_id: link.id,
            visitor_key: `reader${n}@example.com`,
            email: `reader${n}@example.com`,
            ip: '192.0.2.1',
            user_agent: null,
            views: 1,
            seconds: 0,
            pages_seen: 0,
            first_view_at: lastViewOf(n),
            last_view_at: lastViewOf(n),
          };
        }),
      )
      .execute();
  }

  const csv = await http.get(`/api/links/${link.id}/analytics?format=csv`);
  assert.equal(csv.status, 200);
  const lines = (csv.body as string).trimEnd().split('\r\n');
  assert.equal(lines[0], 'visitor,views,seconds,first_view_at,last_view_at,pages_seen,user_agent,email_verified');
  const rows = lines.slice(1).map((line) => line.split(','));
  assert.equal(rows.length, readers);
  assert.equal(new Set(rows.map((row) => row[0])).size, readers, 'each visitor once');
  const expected = Array.from({ length: readers }, (_, n) => ({ visitor: `reader${n}@example.com`, at: lastViewOf(n) }))
    .sort((a, b) => b.at - a.at || (a.visitor < b.visitor ? -1 : 1))
    .map(({ visitor, at }) => [visitor, iso(at)]);
  assert.deepEqual(
    rows.map((row) => [row[0], row[4]]),
    expected,
  );
  assert.equal((await http.get(`/api/links/${link.id}/analytics`)).body.visitors.length, MAX_LISTED_VISITORS, 'the JSON lists the latest only');
});

test('CSV cells are quoted where needed and never start a formula', async () => {
  const rows: CsvCell[][] = [
    ['plain', 1],
    ['with, comma', -2],
    ['say "hi"', 0],
    ['two\nlines', null],
    [' padded ', 3],
    ['=SUM(A1:A9)', 4],
    ['+1', 5],
    ['-1', 6],
    ['@cmd', 7],
    ['\tx', 8],
    ['=HYPERLINK("http://evil", "x")', 9],
    ['Mozilla;=1+1', 10],
    ['a\t=1+1', 11],
    ['  =1+1', 12],
    [' \n@cmd', 13],
  ];
  let text = '';
  const pages = csvByPages({ header: ['name', 'n'], pageSize: 100, readPage: async () => rows, cursorAfter: () => 0, cells: (row) => row });
  for await (const lines of pages) text += lines;
  assert.equal(
    text,
    [
      'name,n',
      'plain,1',
      '"with, comma",-2',
      '"say ""hi""",0',
      '"two\nlines",',
      '" padded ",3',
      "'=SUM(A1:A9),4",
      "'+1,5",
      "'-1,6",
      "'@cmd,7",
      `"'\tx",8`,
      `"'=HYPERLINK(""http://evil"", ""x"")",9`,
      '"Mozilla;=1+1",10',
      '"a\t=1+1",11',
      "'  =1+1,12",
      `"' \n@cmd",13`,
      '',
    ].join('\r\n'),
  );
});

test('a view has one time in every record of it: a view a moment before midnight is on the same day in the link and account charts', async (t) => {
  // A clock that moves on each read, as a real one does during a transaction, up to midnight and past it.
  let now = TODAY + DAY - 5;
  const app = await startApp(t, { clock: () => now++ });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'x', 'Late.txt');
  now = TODAY + DAY - 3;
  assert.equal((await new VisitorClient(app.url).get(`/v/${id}`)).status, 200);

  const [link] = (await http.get('/api/links')).body.links as Array<{ last_viewed_at: string }>;
  const analytics = (await http.get(`/api/links/${id}/analytics`)).body as {
    viewsByDay: Array<{ date: string; views: number }>;
    visitors: Array<{ lastViewAt: string }>;
  };
  const global = (await http.get('/api/analytics/global')).body as { charts: { viewsByDay: Array<{ date: string; views: number }> } };
  const dayOf = (days: Array<{ date: string; views: number }>) => days.find((day) => day.views > 0)?.date;
  assert.equal(dayOf(analytics.viewsByDay), dayOf(global.charts.viewsByDay));
  assert.equal(link!.last_viewed_at, analytics.visitors[0]!.lastViewAt);
});
