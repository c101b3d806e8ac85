import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openUnmigratedDatabase } from '../../../test/helpers/database.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const TODAY = Date.UTC(2025, 5, 15);
const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)';

test("views made before the upgrade are counted into each link's tallies", async (t) => {
  const { db, migrator } = await openUnmigratedDatabase(t);
  assert.equal((await migrator.migrateTo('0026-page-stamp-base')).error, undefined);

  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ email: 'old@example.com', name: null, plan: 'business', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const link = (id: string) =>
    db
      .insertInto('links')
      .values({ id, account_id: accountId, kind: 'file', name: `${id}.pdf`, mime: 'application/pdf', created_at: 1, expires_at: TODAY + DAY })
      .execute();
  await link('deck');
  await link('unseen');
  let token = 0;
  const view = async (
    who: { email?: string; ip: string; userAgent?: string },
    startedAt: number | null,
    pages: Array<[number, number]> = [],
    linkId = 'deck',
  ) => {
    const visit = await db
      .insertInto('visits')
      .values({
        token_hash: `token-${token++}`,
        link_id: linkId,
        email: who.email ?? null,
        ip: who.ip,
        user_agent: who.userAgent ?? null,
        created_at: startedAt ?? TODAY,
        expires_at: (startedAt ?? TODAY) + HOUR,
        session_started_at: startedAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [page, seconds] of pages) {
      await db
        .insertInto('page_views')
        .values({ visit_id: visit.id, page, seconds, created_at: startedAt ?? TODAY })
        .execute();
    }
  };
  await view({ email: 'ann@example.com', ip: '192.0.2.1', userAgent: 'Firefox' }, TODAY - DAY + 9 * HOUR, [[1, 10]]);
  await view({ email: 'ann@example.com', ip: '192.0.2.50', userAgent: PHONE }, TODAY + 10 * HOUR, [
    [1, 30],
    [2, 15],
  ]);
  await view({ ip: '203.0.113.7' }, TODAY - 29 * DAY + 9 * HOUR, []);
  await view({ ip: '203.0.113.7', userAgent: 'Edge' }, TODAY - DAY + 11 * HOUR, [[1, 5]]);
  await view({ ip: '203.0.113.7', userAgent: 'Lynx' }, TODAY - DAY + 11 * HOUR); // the same millisecond, a later visit
  await view({ email: 'bob@example.com', ip: '198.51.100.2' }, null); // never passed the gates: no view
  await view({ email: 'bob@example.com', ip: '198.51.100.2' }, TODAY - 2 * DAY, [], 'unseen');

  assert.equal((await migrator.migrateToLatest()).error, undefined);
  const numbers = <T extends Record<string, unknown>>(rows: T[]) =>
    rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value])),
    );

  assert.deepEqual(numbers(await db.selectFrom('link_view_totals').selectAll().orderBy('link_id').execute()), [
    { link_id: 'deck', sessions: 5, visitors: 2 },
    { link_id: 'unseen', sessions: 1, visitors: 1 },
  ]);
  assert.deepEqual(numbers(await db.selectFrom('link_daily_views').select(['day', 'views']).where('link_id', '=', 'deck').orderBy('day').execute()), [
    { day: TODAY / DAY - 29, views: 1 },
    { day: TODAY / DAY - 1, views: 3 },
    { day: TODAY / DAY, views: 1 },
  ]);
  assert.deepEqual(
    numbers(await db.selectFrom('link_page_totals').select(['page', 'seconds']).where('link_id', '=', 'deck').orderBy('page').execute()),
    [
      { page: 1, seconds: 45 },
      { page: 2, seconds: 15 },
    ],
  );
  const visitors = await db.selectFrom('link_visitors').selectAll().orderBy('link_id').orderBy('visitor_key').execute();
  assert.deepEqual(numbers(visitors), [
    {
      link_id: 'deck',
      visitor_key: '203.0.113.7',
      email: null,
      ip: '203.0.113.7',
      user_agent: 'Lynx',
      views: 3,
      seconds: 5,
      pages_seen: 1,
      first_view_at: TODAY - 29 * DAY + 9 * HOUR,
      last_view_at: TODAY - DAY + 11 * HOUR,
      // Counted before 0034: how these views were opened is not known.
      unverified_views: null,
    },
    {
      link_id: 'deck',
      visitor_key: 'ann@example.com',
      email: 'ann@example.com',
      ip: '192.0.2.50',
      user_agent: PHONE,
      views: 2,
      seconds: 55,
      pages_seen: 2,
      first_view_at: TODAY - DAY + 9 * HOUR,
      last_view_at: TODAY + 10 * HOUR,
      unverified_views: null,
    },
    {
      link_id: 'unseen',
      visitor_key: 'bob@example.com',
      email: 'bob@example.com',
      ip: '198.51.100.2',
      user_agent: null,
      views: 1,
      seconds: 0,
      pages_seen: 0,
      first_view_at: TODAY - 2 * DAY,
      last_view_at: TODAY - 2 * DAY,
      unverified_views: null,
    },
  ]);
  assert.equal((await db.selectFrom('link_visitor_pages').selectAll().execute()).length, 3);

  assert.equal((await migrator.migrateTo('0026-page-stamp-base')).error, undefined, 'the migration goes down as well');
});
