import type { Executor } from '../../db/executor.js';
import type { NewApiKey } from '../../db/types.js';

const usable = { revoked_at: null } as const;

/**
 * Finds the live key with this hash and counts the request in the same statement, so
 * concurrent requests never lose an increment. Returns the account's current plan.
 */
export function touchLiveKey(db: Executor, keyHash: string, now: number) {
  return db
    .updateTable('api_keys')
    .set((eb) => ({ total_requests: eb('total_requests', '+', 1), last_used_at: now }))
    .where('key_hash', '=', keyHash)
    .where('active', '=', 1)
    .where('revoked_at', 'is', usable.revoked_at)
    .returning((eb) => [
      'api_keys.id',
      'api_keys.account_id',
      eb.selectFrom('accounts').select('plan').whereRef('accounts.id', '=', 'api_keys.account_id').as('plan'),
    ])
    .executeTakeFirst();
}

export function listUsableKeys(db: Executor, accountId: number) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'key_prefix', 'active', 'total_requests', 'created_at', 'last_used_at'])
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .orderBy('id')
    .execute();
}

export async function countUsableKeys(db: Executor, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertKey(db: Executor, key: NewApiKey): Promise<number> {
  const row = await db.insertInto('api_keys').values(key).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Flips active ⇄ inactive; a revoked key is not found. Returns the new state. */
export async function toggleKey(db: Executor, accountId: number, keyId: number): Promise<boolean | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set((eb) => ({ active: eb(eb.val(1), '-', eb.ref('active')) }))
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('active')
    .executeTakeFirst();
  return row === undefined ? undefined : row.active === 1;
}

export async function revokeKey(db: Executor, accountId: number, keyId: number, now: number): Promise<boolean> {
  const row = await db
    .updateTable('api_keys')
    .set({ active: 0, revoked_at: now })
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
