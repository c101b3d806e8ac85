import type { Db } from '../../db/kysely.js';
import type { Clock, Executor } from '../../db/executor.js';
import type { Precompile } from '../../db/precompiled.js';
import type { Identity, Principal } from '../../core/auth.js';
import { forbidden, notFound, unprocessable } from '../../core/errors.js';
import { createPrincipalCache } from '../../core/principal-cache.js';
import { assertMayAct, roleOf, type Role } from '../../core/permissions.js';
import { isoTime } from '../../core/timestamps.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import type { AccountRecords } from '../accounts/account-records.js';
import type { AuditLog, ChangeSource } from '../audit/audit.service.js';
import {
  countUsableKeys,
  findKeyWithMakerRole,
  insertKey,
  keyLookup,
  makerOfKey,
  revokeKey,
  revokeKeysMadeBy,
  toggleKey,
  usableKeysLister,
  type LiveKey,
} from './api-keys.repo.js';
import type { KeyUsage } from './key-usage.js';

export const API_KEY_PREFIX = 'lvk_';
export const MAX_KEYS_PER_ACCOUNT = 5;
const API_KEY_PATTERN = /^lvk_[0-9A-Za-z]{40}$/;

/** `lvk_` + the first 4 characters of the secret part + a fixed mask. */
export function maskKey(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}••••••••`;
}

/**
 * A key acts with its maker's current role in its account, so it never gives more than they have
 * and stops when they leave (or are disabled); a key made at the command line acts as owner.
 */
function roleOfKey(key: Pick<LiveKey, 'created_by' | 'maker_role'>): Role | null {
  if (key.created_by === null) return 'owner';
  return key.maker_role === null ? null : roleOf(key.maker_role);
}

export function createApiKeysService(deps: {
  db: Db;
  precompile: Precompile;
  clock: Clock;
  usage: Pick<KeyUsage, 'record' | 'unwritten'>;
  accounts: Pick<AccountRecords, 'lock'>;
  audit: Pick<AuditLog, 'record'>;
}) {
  const { db, precompile, clock, usage, accounts, audit } = deps;
  const findLiveKey = keyLookup(db, precompile);
  const listUsableKeys = usableKeysLister(db, precompile);
  const principals = createPrincipalCache(clock);

  /**
   * The person a change acts for: the signed-in person, the maker of the key it is made with, or
   * none (the command line, or a key made before keys had makers). A new key acts for them.
   */
  async function personBehind(source: ChangeSource, executor: Executor = db): Promise<number | null> {
    if (source.actor.type === 'user') return source.actor.id;
    return source.actor.type === 'api_key' ? makerOfKey(executor, source.actor.id) : null;
  }

  /** A key that acts as an owner (an owner's, or the command line's) is switched off or revoked by an owner only. */
  async function assertMayChangeKey(principal: Principal, keyId: number, refused: string, executor: Executor): Promise<void> {
    const key = await findKeyWithMakerRole(executor, principal.accountId, keyId);
    if (!key) throw notFound(`API key ${keyId}`);
    if (roleOfKey(key) === 'owner') assertMayAct(principal.role, 'owners', refused);
  }

  return {
    personBehind,

    /** The key's account and plan, or null for a malformed, unknown, inactive or revoked key. */
    async authenticate(presentedKey: string): Promise<Identity | null> {
      if (!API_KEY_PATTERN.test(presentedKey)) return null;
      // Looked up by SHA-256: timing only reveals the hash, and a hash reveals nothing of the key.
      const keyHash = sha256Hex(presentedKey);
      let principal = principals.get(keyHash);
      if (!principal) {
        const readBegan = principals.readBegins();
        const [row] = await findLiveKey(keyHash);
        const role = row && roleOfKey(row);
        if (!row || !role) return null;
        principal = {
          accountId: row.account_id,
          plan: row.plan,
          role,
          via: 'key',
          actor: { type: 'api_key', id: row.id, label: `API key ${row.name}` },
          twoFactor: row.created_by === null ? null : row.maker_totp_confirmed_at !== null,
        };
        principals.set(keyHash, principal, readBegan);
      }
      usage.record(principal.actor.id, clock());
      return principal;
    },

    async list(accountId: number) {
      const rows = await listUsableKeys(accountId);
      return rows.map((row) => {
        const unwritten = usage.unwritten(row.id);
        const lastUsedAt = Math.max(row.last_used_at ?? 0, unwritten?.lastUsedAt ?? 0);
        return {
          id: row.id,
          name: row.name,
          key_prefix: row.key_prefix,
          active: row.active === 1,
          total_requests: Number(row.total_requests) + (unwritten?.requests ?? 0),
          created_at: isoTime(row.created_at),
          last_used_at: lastUsedAt === 0 ? null : isoTime(lastUsedAt),
          created_by: row.created_by === null ? null : { id: row.created_by, name: row.maker_name ?? '' },
          acts_as: roleOfKey(row),
        };
      });
    },

    async create(source: ChangeSource, name: string) {
      const { accountId } = source;
      const key = API_KEY_PREFIX + randomBase62(40);
      const id = await db.transaction().execute(async (trx) => {
        await accounts.lock(trx, accountId);
        if ((await countUsableKeys(trx, accountId)) >= MAX_KEYS_PER_ACCOUNT) {
          throw unprocessable(`An account may hold at most ${MAX_KEYS_PER_ACCOUNT} API keys; delete one first`);
        }
        const keyId = await insertKey(trx, {
          account_id: accountId,
          name,
          key_hash: sha256Hex(key),
          key_prefix: maskKey(key),
          active: 1,
          created_at: clock(),
          created_by: await personBehind(source, trx),
        });
        // Read under the account's lock, which a removal holds too: a maker removed meanwhile would
        // otherwise get a key that outlives the removal (its revocation of their keys ran before).
        const made = await findKeyWithMakerRole(trx, accountId, keyId);
        if (made?.created_by !== null && made?.maker_role === null) throw forbidden('Your access to this account has ended');
        await audit.record(source, { action: 'api_key.created', target: { type: 'api_key', id: keyId }, details: { name } }, trx);
        return keyId;
      });
      return { id, name, key };
    },

    async toggle(principal: Principal, keyId: number) {
      const active = await db.transaction().execute(async (trx) => {
        await assertMayChangeKey(principal, keyId, 'Switching on or off a key that acts as an owner', trx);
        const toggled = await toggleKey(trx, principal.accountId, keyId);
        if (toggled === undefined) throw notFound(`API key ${keyId}`);
        await audit.record(principal, { action: 'api_key.toggled', target: { type: 'api_key', id: keyId }, details: toggled }, trx);
        return toggled.active;
      });
      principals.forgetWhere((cached) => cached.actor.id === keyId);
      return active;
    },

    async revoke(principal: Principal, keyId: number) {
      await db.transaction().execute(async (trx) => {
        await assertMayChangeKey(principal, keyId, 'Revoking a key that acts as an owner', trx);
        const name = await revokeKey(trx, principal.accountId, keyId, clock());
        if (name === undefined) throw notFound(`API key ${keyId}`);
        await audit.record(principal, { action: 'api_key.revoked', target: { type: 'api_key', id: keyId }, details: { name } }, trx);
      });
      principals.forgetWhere((cached) => cached.actor.id === keyId);
    },

    /**
     * Revokes, in the transaction of their removal, the keys a person made in the account: they
     * would act again if the person came back (ADR 0018). The caller forgets the account's keys after commit.
     */
    async revokeMadeBy(source: ChangeSource, userId: number, executor: Executor): Promise<void> {
      for (const key of await revokeKeysMadeBy(executor, source.accountId, userId, clock())) {
        await audit.record(
          source,
          { action: 'api_key.revoked', target: { type: 'api_key', id: key.id }, details: { name: key.name, reason: 'maker_removed' } },
          executor,
        );
      }
    },

    /** Drops what this process remembers of the account's keys (after a plan change). */
    forgetAccount(accountId: number): void {
      principals.forgetWhere((cached) => cached.accountId === accountId);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
