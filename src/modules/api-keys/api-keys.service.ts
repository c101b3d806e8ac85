import type { Db } from '../../db/kysely.js';
import type { Clock } from '../../db/executor.js';
import { notFound, unprocessable } from '../../core/errors.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import { lockAccount } from '../accounts/accounts.repo.js';
import { countUsableKeys, insertKey, listUsableKeys, revokeKey, toggleKey, touchLiveKey } from './api-keys.repo.js';

export const API_KEY_PREFIX = 'lvk_';
export const MAX_KEYS_PER_ACCOUNT = 5;
const API_KEY_PATTERN = /^lvk_[0-9A-Za-z]{40}$/;

/** `lvk_` + the first 4 characters of the secret part + a fixed mask. */
export function maskKey(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}••••••••`;
}

export function createApiKeysService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    /** The key's account and plan, or null for a malformed, unknown, inactive or revoked key. */
    async authenticate(presentedKey: string) {
      if (!API_KEY_PATTERN.test(presentedKey)) return null;
      // Looked up by SHA-256: timing only reveals the hash, and a hash reveals nothing of the key.
      const row = await touchLiveKey(db, sha256Hex(presentedKey), clock());
      if (!row || row.plan === null) return null;
      return { apiKeyId: row.id, accountId: row.account_id, plan: row.plan };
    },

    async list(accountId: number) {
      const rows = await listUsableKeys(db, accountId);
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        key_prefix: row.key_prefix,
        active: row.active === 1,
        total_requests: Number(row.total_requests),
        created_at: new Date(row.created_at).toISOString(),
        last_used_at: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
      }));
    },

    async create(accountId: number, name: string) {
      const key = API_KEY_PREFIX + randomBase62(40);
      const id = await db.transaction().execute(async (trx) => {
        await lockAccount(trx, accountId);
        if ((await countUsableKeys(trx, accountId)) >= MAX_KEYS_PER_ACCOUNT) {
          throw unprocessable(`An account may hold at most ${MAX_KEYS_PER_ACCOUNT} API keys; delete one first`);
        }
        return insertKey(trx, {
          account_id: accountId,
          name,
          key_hash: sha256Hex(key),
          key_prefix: maskKey(key),
          active: 1,
          created_at: clock(),
        });
      });
      return { id, name, key };
    },

    async toggle(accountId: number, keyId: number) {
      const active = await toggleKey(db, accountId, keyId);
      if (active === undefined) throw notFound(`API key ${keyId}`);
      return active;
    },

    async revoke(accountId: number, keyId: number) {
      if (!(await revokeKey(db, accountId, keyId, clock()))) throw notFound(`API key ${keyId}`);
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
