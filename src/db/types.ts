import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * Row types, one per table. Portable conventions (same on SQLite and PostgreSQL):
 * times are epoch milliseconds in bigint columns, flags are 0/1 integers.
 */
export interface AccountsTable {
  id: Generated<number>;
  email: string;
  name: string | null;
  plan: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  key_hash: string;
  key_prefix: string;
  active: number;
  revoked_at: number | null;
  total_requests: Generated<number>;
  last_used_at: number | null;
  created_at: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
