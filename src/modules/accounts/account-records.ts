import type { Db } from '../../db/kysely.js';
import type { Executor } from '../../db/executor.js';
import { planAtLeast, type Plan } from '../../core/plans.js';
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
    /**
     * Whether the account is on `plan` or a higher one now. What a plan pays for (a brand, a custom
     * domain, chat integrations) acts only while it does: moved lower, the settings rest, kept.
     */
    async hasPlan(accountId: number, plan: Plan, executor: Executor = db): Promise<boolean> {
      const account = await findAccountById(executor, accountId);
      return account !== undefined && planAtLeast(account.plan, plan);
    },
    lock: (trx: Executor, accountId: number) => lockAccount(trx, accountId),
  };
}

export type AccountRecords = ReturnType<typeof createAccountRecords>;
