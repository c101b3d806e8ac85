import type { Kysely, Transaction } from 'kysely';
import type { Database } from './types.js';

/** What a repo function runs on: the database itself or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** Epoch milliseconds; injected so tests can move time. */
export type Clock = () => number;

/** A unique index refused the row, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Work that must commit or roll back with a change, given the change's transaction and result. */
export type CommitsWith<T> = (trx: Executor, result: T) => Promise<void>;
