import { PostgresAdapter, type Kysely, type Transaction } from 'kysely';
import type { Database } from './types.js';

/** What a repo function runs on: the database itself or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** Whether `db` is PostgreSQL, whose row locks a repo asks for where SQLite's one writer needs none. */
export const isPostgres = (db: Executor): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** Epoch milliseconds; injected so tests can move time. */
export type Clock = () => number;

/** A unique index refused the row, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A row named a parent that is not there (deleted meanwhile by another request), on either database. */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Work that must commit or roll back with a change, given the change's transaction and result. */
export type CommitsWith<T> = (trx: Executor, result: T) => Promise<void>;

/** The database could not be reached, or its connection broke under a query (refused, reset, timed out): see kysely.ts. */
export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';
}

/** SQLSTATEs of a server that ended the connection (shutdown, pg_terminate_backend) or of one that was lost. */
const CONNECTION_LOST_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006']);

/** The database could not be reached or lost the connection (a restart, a failover, pg_terminate_backend): worth a retry. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnreachableError) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && CONNECTION_LOST_CODES.has(code)) return true;
  // node-postgres's own words for a connection that died under a query.
  return (
    typeof message === 'string' &&
    /^Connection terminated|^Client has encountered a connection error|^Client was closed and is not queryable/.test(message)
  );
}

/** PostgreSQL refused text it cannot store (U+0000, or bytes that are not UTF-8): the request's fault. */
export function isUnstorableText(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}

/** PostgreSQL ended a statement that ran past `statement_timeout` (or one cancelled by an operator). */
export function isStatementCancelled(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '57014';
}

/** The database's disk is full (SQLite's SQLITE_FULL, PostgreSQL's disk_full). */
export function isDatabaseFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === '53100';
}

/** How loud a failure of background work is: a database that is away (the next run retries) is a warning, anything else a fault of ours. */
export function failureLevel(error: unknown): 'warn' | 'error' {
  return isDatabaseUnavailable(error) ? 'warn' : 'error';
}
