import { sql, type Kysely } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { Precompile } from '../../db/precompiled.js';
import type { ApiKeyRow, Database, NewApiKey } from '../../db/types.js';

/** The live key with this hash, with its account's current plan: compiled once, run per request. */
export function keyLookup(db: Kysely<Database>, precompile: Precompile) {
  return precompile<{ id: number; account_id: number; name: string; plan: string }, [keyHash: string]>(1, (keyHash) =>
    db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select(['api_keys.id', 'api_keys.account_id', 'api_keys.name', 'accounts.plan'])
      .where('api_keys.key_hash', '=', keyHash)
      .where('api_keys.active', '=', sql.lit(1))
      .where('api_keys.revoked_at', 'is', null),
  );
}

export function usableKeysLister(db: Kysely<Database>, precompile: Precompile) {
  return precompile<KeyListing, [accountId: number]>(1, (accountId) =>
    db
      .selectFrom('api_keys')
      .select(['id', 'name', 'key_prefix', 'active', 'total_requests', 'created_at', 'last_used_at'])
      .where('account_id', '=', accountId as unknown as number)
      .where('revoked_at', 'is', null)
      .orderBy('id'),
  );
}

export type KeyListing = Pick<ApiKeyRow, 'id' | 'name' | 'key_prefix' | 'active' | 'total_requests' | 'created_at' | 'last_used_at'>;

/** Adds requests counted in memory to the stored total, keeping the latest use time. */
export async function addKeyUsage(db: Executor, keyId: number, requests: number, lastUsedAt: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set((eb) => ({
      total_requests: eb('total_requests', '+', requests),
      last_used_at: eb
        .case()
        .when('last_used_at', 'is', null)
        .then(lastUsedAt)
        .when('last_used_at', '<', lastUsedAt)
        .then(lastUsedAt)
        .else(eb.ref('last_used_at'))
        .end(),
    }))
    .where('id', '=', keyId)
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

/** Flips active ⇄ inactive; a revoked key is not found. Returns the key's name and new state. */
export async function toggleKey(db: Executor, accountId: number, keyId: number): Promise<{ name: string; active: boolean } | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set((eb) => ({ active: eb(eb.val(1), '-', eb.ref('active')) }))
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning(['name', 'active'])
    .executeTakeFirst();
  return row === undefined ? undefined : { name: row.name, active: row.active === 1 };
}

/** Returns the name of the key revoked, or undefined when the account has no such usable key. */
export async function revokeKey(db: Executor, accountId: number, keyId: number, now: number): Promise<string | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set({ active: 0, revoked_at: now })
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('name')
    .executeTakeFirst();
  return row?.name;
}
