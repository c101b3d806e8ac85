import { test } from 'node:test';
import type { Executor } from '../../db/executor.js';
import { openTestDatabase } from '../../../test/helpers/database.js';
import { assertIndexedPlans, queryPlans } from '../../../test/helpers/query-plan.js';
import { DAY_MS, accountTotals, addDailyView, addToAccountTotal, latestEvents, linkTotals, mostViewedLinks, viewsPerDay } from './analytics.repo.js';

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
