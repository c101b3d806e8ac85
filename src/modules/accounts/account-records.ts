import type { Db } from '../../db/kysely.js';
import type { Executor } from '../../db/executor.js';
import { findAccountByEmail, findAccountById, findFirstAccountId, lockAccount } from './accounts.repo.js';

/**
 * The accounts table as other modules use it: read one account, or hold its lock for the rest
 * of a transaction (rules such as "at most 5 keys"). Needs nothing, so every service can have it.
 */
export function createAccountRecords(deps: { db: Db }) {
  const { db } = deps;
  return {
    byId: (accountId: number, executor: Executor = db) => findAccountById(executor, accountId),
    byEmail: (email: string, executor: Executor = db) => findAccountByEmail(executor, email.trim().toLowerCase()),
    firstId: (executor: Executor = db) => findFirstAccountId(executor),
    lock: (trx: Executor, accountId: number) => lockAccount(trx, accountId),
  };
}

export type AccountRecords = ReturnType<typeof createAccountRecords>;
