import { sql, type Kysely } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { Precompile } from '../../db/precompiled.js';
import type { ApiKeyRow, Database, NewApiKey } from '../../db/types.js';

export interface LiveKey {
  id: number;
  account_id: number;
  name: string;
  plan: string;
  created_by: number | null;
  /** the maker's current role in the key's account; null when they have none (left, or disabled) */
  maker_role: string | null;
  /** when the maker turned on two-factor sign-in; null when they have not (or the key has no maker) */
  maker_totp_confirmed_at: number | null;
}

/**
 * The live key with this hash, with its account's current plan, its maker's current role there
 * and whether they have two-factor sign-in on (the memberships and users of `modules/members`
 * and `modules/users`, read only):
 * compiled once, run per request.
 */
export function keyLookup(db: Kysely<Database>, precompile: Precompile) {
  return precompile<LiveKey, [keyHash: string]>(1, (keyHash) =>
    db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .leftJoin('users', (join) => join.onRef('users.id', '=', 'api_keys.created_by').on('users.disabled_at', 'is', null))
      .leftJoin('memberships', (join) =>
        join.onRef('memberships.user_id', '=', 'users.id').onRef('memberships.account_id', '=', 'api_keys.account_id'),
      )
      .select([
        'api_keys.id',
        'api_keys.account_id',
        'api_keys.name',
        'accounts.plan',
        'api_keys.created_by',
        'memberships.role as maker_role',
        'users.totp_confirmed_at as maker_totp_confirmed_at',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .where('api_keys.active', '=', sql.lit(1))
      .where('api_keys.revoked_at', 'is', null),
  );
}

/** A usable key of the account, with its maker and the maker's role there now (null: they left); undefined when there is none. */
export function findKeyWithMakerRole(db: Executor, accountId: number, keyId: number) {
  return db
    .selectFrom('api_keys')
    .leftJoin('memberships', (join) =>
      join.onRef('memberships.user_id', '=', 'api_keys.created_by').onRef('memberships.account_id', '=', 'api_keys.account_id'),
    )
    .select(['api_keys.created_by', 'memberships.role as maker_role'])
    .where('api_keys.id', '=', keyId)
    .where('api_keys.account_id', '=', accountId)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Who made a key (null: the command line), for a key made with a key: it is made on the same person's behalf. */
export async function makerOfKey(db: Executor, keyId: number): Promise<number | null> {
  const row = await db.selectFrom('api_keys').select('created_by').where('id', '=', keyId).executeTakeFirst();
  return row?.created_by ?? null;
}

export function usableKeysLister(db: Kysely<Database>, precompile: Precompile) {
  return precompile<KeyListing, [accountId: number]>(1, (accountId) =>
    db
      .selectFrom('api_keys')
      .leftJoin('users', 'users.id', 'api_keys.created_by')
      .leftJoin('memberships', (join) =>
        join.onRef('memberships.user_id', '=', 'api_keys.created_by').onRef('memberships.account_id', '=', 'api_keys.account_id'),
      )
      .select([
        'api_keys.id',
        'api_keys.name',
        'api_keys.key_prefix',
        'api_keys.active',
        'api_keys.total_requests',
        'api_keys.created_at',
        'api_keys.last_used_at',
        'api_keys.created_by',
        'users.name as maker_name',
        'memberships.role as maker_role',
      ])
      .where('api_keys.account_id', '=', accountId as unknown as number)
      .where('api_keys.revoked_at', 'is', null)
      .orderBy('api_keys.id'),
  );
}

export type KeyListing = Pick<
  ApiKeyRow,
  'id' | 'name' | 'key_prefix' | 'active' | 'total_requests' | 'created_at' | 'last_used_at' | 'created_by'
> & { maker_name: string | null; maker_role: string | null };

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

/** Revokes every usable key one person made in the account; returns those revoked. */
export function revokeKeysMadeBy(db: Executor, accountId: number, userId: number, now: number): Promise<Array<{ id: number; name: string }>> {
  return db
    .updateTable('api_keys')
    .set({ active: 0, revoked_at: now })
    .where('account_id', '=', accountId)
    .where('created_by', '=', userId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'name'])
    .execute();
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
