import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { openTestDatabase } from '../../../test/helpers/database.js';
import { assertIndexedPlans, queryPlans } from '../../../test/helpers/query-plan.js';
import { EXPIRATIONS } from './link-settings.js';
import {
  changeLinkExpiry,
  countLinks,
  countRooms,
  deleteLink,
  fileExpiredLinks,
  insertLink,
  listLinks,
  listRooms,
  type LinkOrder,
  type SortPosition,
} from './links.repo.js';

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

  // The fifteen oldest links are filed under the expired tab; the fifteen newest are active at NOW.
  const FILED_AT = NOW + 7 * 24 * HOUR - 5 * HOUR;
  await db.transaction().execute((trx) => fileExpiredLinks(trx, accountId, FILED_AT));
  const count = await queryPlans(db, (executor) => countLinks(executor, accountId, FILED_AT));
  if (process.env.PRINT_PLANS) console.log(count.join('\n---\n'));
  assertIndexedPlans(count, /link_counts_pkey|SEARCH link_counts USING INTEGER PRIMARY KEY/);
  assertIndexedPlans(count, /links_unfiled_expiry_idx/);
  const filing = await queryPlans(db, (executor) => fileExpiredLinks(executor, accountId, FILED_AT));
  if (process.env.PRINT_PLANS) console.log(filing.join('\n---\n'));
  assertIndexedPlans(filing.slice(0, 1), /links_unfiled_expiry_idx/);

  const position = { value: NOW - 5 * 20 * 60_000, id: 'planlink0000000005' };
  const pages = {
    first: { limit: 10 },
    deep: { limit: 10, offset: 10 },
    fromTheOldest: { limit: 10, offset: 5, fromTheEnd: true },
    afterCursor: { limit: 11, after: position },
  };
  for (const [name, page] of Object.entries(pages)) {
    for (const tab of ['active', 'expired'] as const) {
      const plans = await queryPlans(db, (executor) => listLinks(executor, accountId, tab, NOW, page));
      if (process.env.PRINT_PLANS) console.log(`${name} ${tab}:\n${plans.join('\n---\n')}`);
      await t.test(`${name}, ${tab}`, () => {
        assertIndexedPlans(plans.slice(0, 1), /links_account_tab_idx/);
        assertIndexedPlans(plans.slice(1), /links_pkey|sqlite_autoindex_links_1/);
      });
    }
  }
});

test('every other order of the list reads its own index per tab, by page, from the end and after a cursor, with no sort', async (t) => {
  const { db } = (await openTestDatabase(t)).handle;
  const accountId = await seedAccount(db);
  for (let n = 0; n < 30; n++) await addLink(db, accountId, `planlink${String(n).padStart(10, '0')}`, NOW - n * 20 * 60_000, EXPIRATIONS['7d']);
  await db.transaction().execute((trx) => fileExpiredLinks(trx, accountId, NOW + 7 * 24 * HOUR - 5 * HOUR));
  const orders: Array<{ order: LinkOrder; index: RegExp; after: SortPosition }> = [
    {
      order: { sort: 'name', direction: 'asc' },
      index: /links_account_tab_name_idx/,
      after: { value: 'planlink0000000005.pdf', id: 'planlink0000000005' },
    },
    { order: { sort: 'views', direction: 'desc' }, index: /links_account_tab_views_idx/, after: { value: 3, id: 'planlink0000000005' } },
    { order: { sort: 'lastViewed', direction: 'desc' }, index: /links_account_tab_viewed_idx/, after: { value: NOW, id: 'planlink0000000005' } },
    {
      order: { sort: 'created', direction: 'asc' },
      index: /links_account_tab_idx/,
      after: { value: NOW - 25 * 20 * 60_000, id: 'planlink0000000025' },
    },
  ];
  for (const { order, index, after } of orders) {
    for (const tab of ['active', 'expired'] as const) {
      for (const page of [{ limit: 10 }, { limit: 10, offset: 5, fromTheEnd: true }, { limit: 11, after }]) {
        const plans = await queryPlans(db, (executor) => listLinks(executor, accountId, tab, NOW, { ...page, order }));
        if (process.env.PRINT_PLANS) console.log(`${order.sort} ${order.direction} ${tab}:\n${plans.join('\n---\n')}`);
        assertIndexedPlans(plans.slice(0, 1), index);
        assertIndexedPlans(plans.slice(1), /links_pkey|sqlite_autoindex_links_1/);
      }
    }
  }
});

test('counts per tab follow inserts, deletes, the clock, filing and a new expiry', async (t) => {
  const { db } = (await openTestDatabase(t)).handle;
  const accountId = await seedAccount(db);
  const other = await seedAccount(db);
  const inTransaction = <T>(work: (trx: Executor) => Promise<T>) => db.transaction().execute(work);
  // Expiring: already, in an hour, in a week, in ten years; and another account's.
  await addLink(db, accountId, 'expiredalready0001', NOW - HOUR, 60_000);
  await addLink(db, accountId, 'expiringinanhour01', NOW, HOUR);
  await addLink(db, accountId, 'expiringinaweek001', NOW, EXPIRATIONS['7d']);
  await addLink(db, accountId, 'expiringinadecade1', NOW, 3650 * 24 * HOUR);
  await addLink(db, other, 'othersaccountlink1', NOW, HOUR);

  assert.deepEqual(await countLinks(db, accountId, NOW), { active: 3, expired: 1, unfiled: 1 });
  assert.deepEqual(await countLinks(db, accountId, NOW + 2 * HOUR), { active: 2, expired: 2, unfiled: 2 });
  assert.equal(await inTransaction((trx) => fileExpiredLinks(trx, accountId, NOW + 2 * HOUR)), 2);
  assert.equal(await inTransaction((trx) => fileExpiredLinks(trx, accountId, NOW + 2 * HOUR)), 0, 'each link is filed once');
  assert.deepEqual(await countLinks(db, accountId, NOW + 2 * HOUR), { active: 2, expired: 2, unfiled: 0 });
  assert.deepEqual(await countLinks(db, accountId, NOW + 365 * 24 * HOUR), { active: 1, expired: 3, unfiled: 1 });

  // A new expiry takes a filed link back to the active tab.
  await inTransaction((trx) => changeLinkExpiry(trx, accountId, 'expiredalready0001', NOW + 24 * HOUR));
  assert.deepEqual(await countLinks(db, accountId, NOW + 2 * HOUR), { active: 3, expired: 1, unfiled: 0 });

  assert.ok(await inTransaction((trx) => deleteLink(trx, accountId, 'expiringinanhour01')), 'a filed link');
  assert.ok(await inTransaction((trx) => deleteLink(trx, accountId, 'expiringinaweek001')), 'an active link');
  assert.equal(await inTransaction((trx) => deleteLink(trx, accountId, 'othersaccountlink1')), undefined);
  assert.deepEqual(await countLinks(db, accountId, NOW + 2 * HOUR), { active: 2, expired: 0, unfiled: 0 });
  assert.deepEqual(await countLinks(db, other, NOW), { active: 1, expired: 0, unfiled: 0 });
  assert.deepEqual(await countLinks(db, await seedAccount(db), NOW), { active: 0, expired: 0, unfiled: 0 });
});

test("the data rooms' list and count read the rooms by key, however many files the account has", async (t) => {
  const { db } = (await openTestDatabase(t)).handle;
  const accountId = await seedAccount(db);
  for (let n = 0; n < 30; n++) await addLink(db, accountId, `planlink${String(n).padStart(10, '0')}`, NOW - n * 60_000, EXPIRATIONS['7d']);
  const rooms = await queryPlans(db, (executor) => listRooms(executor, accountId, { limit: 10, offset: 0 }));
  const count = await queryPlans(db, (executor) => countRooms(executor, accountId));
  if (process.env.PRINT_PLANS) console.log([...rooms, ...count].join('\n---\n'));
  assertIndexedPlans(rooms.slice(0, 1), /links_account_kind_created_idx/);
  assertIndexedPlans(count, /links_account_kind_created_idx/);
});
