import type { Db } from '../../db/kysely.js';
import { isUniqueViolation, type Clock, type Executor } from '../../db/executor.js';
import { conflict, unprocessable, notFound } from '../../core/errors.js';
import type { Plan } from '../../core/plans.js';
import { isoTime } from '../../core/timestamps.js';
import { recordName } from '../../core/text.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import { newPersonEmail } from '../users/users.service.js';
import { commandLineSource, type AuditLog, type ChangeSource } from '../audit/audit.service.js';
import { findAccountByEmail, findAccountById, insertAccount, lockAccount, updateAccount, updateAccountPlan } from './accounts.repo.js';

const ACCOUNT_NAME_MAX = 100;

/**
 * Accounts: made and moved between plans by the CLI (and by setup and open sign-up); their name
 * and address changed by their owners.
 */
export function createAccountsService(deps: {
  db: Db;
  clock: Clock;
  apiKeys: Pick<ApiKeysService, 'create' | 'forgetAccount'>;
  audit: Pick<AuditLog, 'record'>;
}) {
  const { db, clock, apiKeys, audit } = deps;

  const detailOf = (account: { id: number; name: string | null; email: string; plan: string; created_at: number }) => ({
    id: account.id,
    name: account.name ?? account.email,
    email: account.email,
    plan: account.plan,
    createdAt: isoTime(account.created_at),
  });

  return {
    async detail(accountId: number) {
      const account = await findAccountById(db, accountId);
      if (!account) throw notFound(`Account ${accountId}`);
      return detailOf(account);
    },

    /**
     * The account's name (shown to its people and in its switcher) and its address (mail about
     * views, requests and sales when no one else is to be told; the CLI's `--email`). An address
     * another account has is a 409.
     */
    async update(source: ChangeSource, changes: { name?: string; email?: string }) {
      const name = changes.name === undefined ? undefined : recordName(changes.name, 'An account name', ACCOUNT_NAME_MAX);
      const email = changes.email === undefined ? undefined : newPersonEmail(changes.email);
      const updated = await db.transaction().execute(async (trx) => {
        await lockAccount(trx, source.accountId);
        const account = await findAccountById(trx, source.accountId);
        if (!account) throw notFound(`Account ${source.accountId}`);
        const next = {
          ...(name !== undefined && name !== account.name && { name }),
          ...(email !== undefined && email !== account.email && { email }),
        };
        if (Object.keys(next).length === 0) return account;
        if (next.email !== undefined && (await findAccountByEmail(trx, next.email))) throw addressTaken(next.email);
        try {
          await updateAccount(trx, account.id, next);
        } catch (error) {
          throw isUniqueViolation(error) && next.email !== undefined ? addressTaken(next.email) : error;
        }
        const details = Object.fromEntries(
          Object.keys(next).map((field) => [field, { from: account[field as keyof typeof next], to: next[field as keyof typeof next] }]),
        );
        await audit.record(source, { action: 'account.updated', target: { type: 'account', id: account.id }, details }, trx);
        return { ...account, ...next };
      });
      return detailOf(updated);
    },

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

const addressTaken = (email: string) => conflict(`Another account has the address ${email}`);

export type AccountsService = ReturnType<typeof createAccountsService>;
