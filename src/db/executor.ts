import type { Kysely, Transaction } from 'kysely';
import type { Database } from './types.js';

/** What a repo function runs on: the database itself or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** Epoch milliseconds; injected so tests can move time. */
export type Clock = () => number;

/** A unique index refused the row, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
