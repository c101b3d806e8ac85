import { test } from 'node:test';
import type { Executor } from '../../db/executor.js';
import { openTestDatabase } from '../../../test/helpers/database.js';
import { assertIndexedPlans, queryPlans } from '../../../test/helpers/query-plan.js';
import {
  DAY_MS,
  accountTotals,
  addDailyView,
  addToAccountTotal,
  latestEvents,
  linkTotals,
  linkViewTotals,
  linkViewsPerDay,
  linkVisitors,
  mostViewedLinks,
  secondsPerPage,
  viewsPerDay,
} from './analytics.repo.js';
import { linkTallies } from './analytics.service.js';

const NOW = Date.UTC(2025, 5, 15, 10, 30);

test('the global dashboard reads through indexes and kept totals, with no scan or sort', async (t) => {
  const { db } = (await openTestDatabase(t)).handle;
  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ email: 'plans@example.com', name: null, plan: 'professional', created_at: NOW })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (let n = 0; n < 20; n++) {
    const linkId = `planlink${String(n).padStart(10, '0')}`;
    await db
      .insertInto('links')
      .values({
        id: linkId,
        account_id: accountId,
        kind: 'file',
        name: 'a.pdf',
        mime: 'application/pdf',
        views: n,
        created_at: NOW,
        expires_at: NOW + DAY_MS,
      })
      .execute();
    await db
      .insertInto('events')
      .values({ account_id: accountId, type: 'link.viewed', link_id: linkId, payload: '{"linkName":"a.pdf"}', created_at: NOW + n })
      .execute();
    await addDailyView(db, accountId, Math.floor(NOW / DAY_MS) - (n % 5));
  }
  await addToAccountTotal(db, accountId, 'visitors');

  const firstDay = Math.floor(NOW / DAY_MS) - 29;
  const reads: Record<string, { run: (executor: Executor) => Promise<unknown>; uses: RegExp }> = {
    totals: {
      run: (executor) => accountTotals(executor, accountId),
      uses: /account_analytics_totals_pkey|SEARCH account_analytics_totals USING INTEGER PRIMARY KEY/,
    },
    links: { run: (executor) => linkTotals(executor, accountId, NOW), uses: /links_account_\w+_idx/ },
    topLinks: { run: (executor) => mostViewedLinks(executor, accountId, 10), uses: /links_account_views_idx/ },
    recentActivity: { run: (executor) => latestEvents(executor, accountId, 20), uses: /events_account_latest_idx/ },
    viewsByDay: {
      run: (executor) => viewsPerDay(executor, accountId, firstDay),
      uses: /account_daily_views_pk|sqlite_autoindex_account_daily_views_1/,
    },
  };
  for (const [name, { run, uses }] of Object.entries(reads)) {
    const plans = await queryPlans(db, run);
    if (process.env.PRINT_PLANS) console.log(`${name}:\n${plans.join('\n---\n')}`);
    await t.test(name, () => assertIndexedPlans(plans, uses));
  }
});

test("a link's analytics read its tallies by key, with no scan or sort, however many views it has", async (t) => {
  const { db } = (await openTestDatabase(t)).handle;
  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ email: 'link-plans@example.com', name: null, plan: 'professional', created_at: NOW })
    .returning('id')
    .executeTakeFirstOrThrow();
  const linkId = 'planlinktallies0000001';
  for (const id of [linkId, 'planlinktallies0000002']) {
    await db
      .insertInto('links')
      .values({ id, account_id: accountId, kind: 'file', name: 'a.pdf', mime: 'application/pdf', created_at: NOW, expires_at: NOW + DAY_MS })
      .execute();
    for (let n = 0; n < 30; n++) {
      const at = NOW - (n % 7) * DAY_MS + n;
      const who = { linkId: id, email: n % 3 === 0 ? `reader${n % 5}@example.com` : null, ip: `192.0.2.${n % 11}` };
      await linkTallies.viewOpened(db, { ...who, emailVerified: true, userAgent: 'Firefox', at });
      await linkTallies.pageRead(db, { ...who, page: 1 + (n % 4), seconds: n });
    }
  }

  const reads: Record<string, { run: (executor: Executor) => Promise<unknown>; uses: RegExp }> = {
    totals: { run: (executor) => linkViewTotals(executor, linkId), uses: /link_view_totals_pk|sqlite_autoindex_link_view_totals_1/ },
    viewsByDay: {
      run: (executor) => linkViewsPerDay(executor, linkId, Math.floor(NOW / DAY_MS) - 29),
      uses: /link_daily_views_pk|sqlite_autoindex_link_daily_views_1/,
    },
    pages: { run: (executor) => secondsPerPage(executor, linkId), uses: /link_page_totals_pk|sqlite_autoindex_link_page_totals_1/ },
    visitors: { run: (executor) => linkVisitors(executor, linkId, 5000), uses: /link_visitors_latest_idx/ },
    nextVisitors: {
      run: (executor) => linkVisitors(executor, linkId, 1000, { lastViewAt: NOW - DAY_MS, visitorKey: '192.0.2.3' }),
      uses: /link_visitors_latest_idx/,
    },
  };
  for (const [name, { run, uses }] of Object.entries(reads)) {
    const plans = await queryPlans(db, run);
    if (process.env.PRINT_PLANS) console.log(`${name}:\n${plans.join('\n---\n')}`);
    await t.test(name, () => assertIndexedPlans(plans, uses));
  }
});
