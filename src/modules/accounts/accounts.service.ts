import type { Db } from '../../db/kysely.js';
import type { Clock, Executor } from '../../db/executor.js';
import { unprocessable, notFound } from '../../core/errors.js';
import type { Plan } from '../../core/plans.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import { commandLineSource } from '../audit/audit.service.js';
import { findAccountByEmail, insertAccount, updateAccountPlan } from './accounts.repo.js';

/** Account administration: used by the CLI (the REST API has no account endpoints). */
export function createAccountsService(deps: { db: Db; clock: Clock; apiKeys: Pick<ApiKeysService, 'create' | 'forgetAccount'> }) {
  const { db, clock, apiKeys } = deps;
  return {
    async create(input: { email: string; plan: Plan; name?: string }) {
      const email = input.email.trim().toLowerCase();
      if (await findAccountByEmail(db, email)) throw unprocessable(`An account with e-mail ${email} already exists`);
      const accountId = await insertAccount(db, { email, name: input.name ?? null, plan: input.plan, createdAt: clock() });
      const { key } = await apiKeys.create(commandLineSource(accountId), 'default');
      return { accountId, apiKey: key };
    },

    /** A new account for a person who signs up or sets up the install; no API key until they make one. */
    async open(input: { email: string; plan: Plan; name: string }, executor: Executor = db): Promise<number> {
      const email = input.email.trim().toLowerCase();
      if (await findAccountByEmail(executor, email)) throw unprocessable(`An account with e-mail ${email} already exists`);
      return insertAccount(executor, { email, name: input.name, plan: input.plan, createdAt: clock() });
    },

    async setPlan(email: string, plan: Plan) {
      const account = await findAccountByEmail(db, email.trim().toLowerCase());
      if (!account) throw notFound(`Account ${email}`);
      await updateAccountPlan(db, account.email, plan);
      apiKeys.forgetAccount(account.id);
    },

    async idByEmail(email: string): Promise<number> {
      const account = await findAccountByEmail(db, email.trim().toLowerCase());
      if (!account) throw notFound(`Account ${email}`);
      return account.id;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
