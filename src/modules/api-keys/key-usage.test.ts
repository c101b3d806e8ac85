import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestDatabase } from '../../../test/helpers/database.js';
import { createKeyUsage } from './key-usage.js';

const KEYS = 120;
const ROUNDS = 15;

/** An account with `count` keys (rows only: the limit of 5 is the service's), their ids. */
async function keysOf(db: Awaited<ReturnType<typeof openTestDatabase>>['handle']['db'], count: number): Promise<number[]> {
  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ email: 'usage@example.com', name: null, plan: 'business', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const rows = Array.from({ length: count }, (_, n) => ({
    account_id: accountId,
    name: `key ${n}`,
    key_hash: `hash-${n}`,
    key_prefix: 'lvk_test',
    active: 1,
    created_at: 1,
  }));
  return (await db.insertInto('api_keys').values(rows).returning('id').execute()).map((row) => row.id);
}

test("two replicas writing the same keys' usage in opposite orders, at the same moments, lose and refuse nothing", async (t) => {
  if (!process.env.TEST_DATABASE_URL) return t.skip('replicas share a PostgreSQL database; SQLite serves one process');
  const { handle, reopen } = await openTestDatabase(t);
  const ids = await keysOf(handle.db, KEYS);
  const errors: unknown[] = [];
  // Each replica has its own connections, as two processes would.
  const a = createKeyUsage({ db: handle.db, onError: (error) => errors.push(error) });
  const b = createKeyUsage({ db: reopen().db, onError: (error) => errors.push(error) });
  for (let round = 1; round <= ROUNDS; round++) {
    for (const id of ids) a.record(id, round);
    for (const id of [...ids].reverse()) b.record(id, round);
    const outcomes = await Promise.allSettled([a.flush(), b.flush()]);
    for (const outcome of outcomes) if (outcome.status === 'rejected') errors.push(outcome.reason);
  }
  await Promise.all([a.stop(), b.stop()]);
  assert.deepEqual(errors.map(String), [], 'no write was refused (a deadlock)');
  const totals = await handle.db.selectFrom('api_keys').select(['total_requests', 'last_used_at']).execute();
  assert.deepEqual(new Set(totals.map((row) => `${row.total_requests} ${row.last_used_at}`)), new Set([`${2 * ROUNDS} ${ROUNDS}`]));
});

test('stop waits for a write already under way, so what it counted is in the database when it returns', async (t) => {
  const { handle } = await openTestDatabase(t);
  const ids = await keysOf(handle.db, KEYS);
  const usage = createKeyUsage({ db: handle.db, onError: () => undefined });
  for (const id of ids) usage.record(id, 1);
  const underWay = usage.flush();
  await usage.stop();
  const totals = await handle.db.selectFrom('api_keys').select('total_requests').execute();
  assert.deepEqual(
    totals.map((row) => row.total_requests),
    ids.map(() => 1),
  );
  await underWay;
});
