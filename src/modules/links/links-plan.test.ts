import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../db/kysely.js';
import { openTestDatabase } from '../../../test/helpers/database.js';
import { assertIndexedPlans, queryPlans } from '../../../test/helpers/query-plan.js';
import { EXPIRATIONS } from './link-settings.js';
import { countLinks, deleteLink, insertLink, listLinks } from './links.repo.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2025, 5, 15, 10, 30);

async function seedAccount(db: Db): Promise<number> {
  const account = await db
    .insertInto('accounts')
    .values({ email: `plan-${Math.random()}@example.com`, name: null, plan: 'professional', created_at: NOW })
    .returning('id')
    .executeTakeFirstOrThrow();
  return account.id;
}

async function addLink(db: Db, accountId: number, id: string, createdAt: number, lifetime: number): Promise<void> {
  await db.transaction().execute((trx) =>
    insertLink(trx, {
      id,
      account_id: accountId,
      kind: 'file',
      name: `${id}.pdf`,
      mime: 'application/pdf',
      created_at: createdAt,
      expires_at: createdAt + lifetime,
    }),
  );
}

test('the list, count and page queries read through indexes, with no scan or sort of links', async (t) => {
  const { db } = (await openTestDatabase(t)).handle;
  const accountId = await seedAccount(db);
  for (let n = 0; n < 30; n++) await addLink(db, accountId, `planlink${String(n).padStart(10, '0')}`, NOW - n * 20 * 60_000, EXPIRATIONS['7d']);

  const count = await queryPlans(db, (executor) => countLinks(executor, accountId, NOW));
  if (process.env.PRINT_PLANS) console.log(count.join('\n---\n'));
  assertIndexedPlans(count, /link_counts_pkey|SEARCH link_counts USING INTEGER PRIMARY KEY/);
  assertIndexedPlans(count, /link_expiry_counts_pk|sqlite_autoindex_link_expiry_counts_1/);
  assertIndexedPlans(count, /links_account_expiry_idx/);

  const position = { createdAt: NOW - 5 * 20 * 60_000, id: 'planlink0000000005' };
  const pages = {
    first: { limit: 10 },
    deep: { limit: 10, offset: 10 },
    fromTheOldest: { limit: 10, offset: 5, oldestFirst: true },
    afterCursor: { limit: 11, after: position },
  };
  for (const [name, page] of Object.entries(pages)) {
    for (const tab of ['active', 'expired'] as const) {
      const plans = await queryPlans(db, (executor) => listLinks(executor, accountId, tab, NOW + (tab === 'expired' ? 7 * 24 * HOUR : 0), page));
      if (process.env.PRINT_PLANS) console.log(`${name} ${tab}:\n${plans.join('\n---\n')}`);
      await t.test(`${name}, ${tab}`, () => {
        assertIndexedPlans(plans.slice(0, 1), /links_account_created_idx/);
        assertIndexedPlans(plans.slice(1), /links_pkey|sqlite_autoindex_links_1/);
      });
    }
  }
});

test('counts per tab follow inserts, deletes and the clock, within the hour and across hours', async (t) => {
  const { db } = (await openTestDatabase(t)).handle;
  const accountId = await seedAccount(db);
  const other = await seedAccount(db);
  const hourStart = Math.floor(NOW / HOUR) * HOUR;
  // Expiring: earlier this hour, later this hour, next hour, in a week; and another account's.
  await addLink(db, accountId, 'expiredearlier0001', hourStart - 1000, 1000 + 60_000);
  await addLink(db, accountId, 'expiringlater00001', NOW - 10 * 60_000, HOUR);
  await addLink(db, accountId, 'expiringnexthour01', NOW, HOUR);
  await addLink(db, accountId, 'expiringinaweek001', NOW, EXPIRATIONS['7d']);
  await addLink(db, other, 'othersaccountlink1', NOW, HOUR);

  assert.deepEqual(await countLinks(db, accountId, NOW), { active: 3, expired: 1 });
  assert.deepEqual(await countLinks(db, accountId, NOW + 50 * 60_000), { active: 2, expired: 2 });
  assert.deepEqual(await countLinks(db, accountId, NOW + 2 * HOUR), { active: 1, expired: 3 });
  assert.deepEqual(await countLinks(db, accountId, NOW + 8 * 24 * HOUR), { active: 0, expired: 4 });

  assert.ok(await db.transaction().execute((trx) => deleteLink(trx, accountId, 'expiringinaweek001')));
  assert.equal(await db.transaction().execute((trx) => deleteLink(trx, accountId, 'othersaccountlink1')), undefined);
  assert.deepEqual(await countLinks(db, accountId, NOW), { active: 2, expired: 1 });
  assert.deepEqual(await countLinks(db, other, NOW), { active: 1, expired: 0 });
  assert.deepEqual(await countLinks(db, await seedAccount(db), NOW), { active: 0, expired: 0 });
});
