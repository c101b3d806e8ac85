import { setImmediate } from 'node:timers/promises';
import type { Principal } from '../../core/auth.js';
import { notFound, unprocessable } from '../../core/errors.js';
import type { Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { AccountRow } from '../../db/types.js';
import type { JobKind, JobQueue } from '../../infra/jobs/index.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import { commandLineSource, type AuditLog, type ChangeSource } from '../audit/audit.service.js';
import type { AuthService, SelfProof } from '../auth/auth.service.js';
import type { BrandingService } from '../branding/branding.service.js';
import type { LinksService } from '../links/links.service.js';
import type { MembersService } from '../members/members.service.js';
import type { Client, SessionsService } from '../sessions/sessions.service.js';
import type { UsersService } from '../users/users.service.js';
import { deleteAccount, findAccountById, lockAccount } from './accounts.repo.js';

export const ACCOUNT_FILES_JOB = 'account.purge-files';
/**
 * Links deleted in one transaction, whose files one job then deletes. On the embedded database a
 * statement holds the event loop: 100 000 links deleted at once held it for 6.3 s; in batches of
 * 500, for at most 150 ms at a time (17 s in all), with requests answered in between.
 */
const LINKS_PER_BATCH = 500;

/** Tells each other person of a deleted account, in its language and brand (read before the account goes). */
export interface ClosureNotifier {
  accountDeleted(
    to: string,
    data: { accountId: number; accountName: string; deletedBy: string | null; signInDeleted: boolean },
    executor: Executor,
  ): Promise<void>;
}

interface AccountFiles {
  accountId: number;
  linkIds: string[];
  /** The account's logos too: the last job, written with the account row's deletion. */
  logos?: boolean;
}

/**
 * An owner deletes the account and everything in it: links, rooms, portals, views, purchases,
 * members, keys, settings (the database's foreign keys cascade from the account row). Its files
 * go after each commit, by durable jobs written in the same transaction (the last also deletes
 * the logos); the orphan sweep is the backstop, as for a deleted link. People whose
 * only account it was lose their sign-in too: nothing of theirs stays. The server's audit log
 * keeps the entry of the deletion.
 */
export function createAccountClosure(deps: {
  db: Db;
  auth: Pick<AuthService, 'provenPerson'>;
  members: Pick<MembersService, 'peopleOf'>;
  users: Pick<UsersService, 'remove'>;
  sessions: Pick<SessionsService, 'forgetUser'>;
  apiKeys: Pick<ApiKeysService, 'forgetAccount'>;
  links: Pick<LinksService, 'deleteSomeOf' | 'purgeFiles'>;
  branding: Pick<BrandingService, 'purgeFiles'>;
  audit: Pick<AuditLog, 'record'>;
  jobs: Pick<JobQueue, 'enqueue'>;
  mail: ClosureNotifier;
}) {
  const { db, auth, members, users, sessions, apiKeys, links, branding, audit, jobs, mail } = deps;

  const job: JobKind<AccountFiles> = {
    async run({ accountId, linkIds, logos }) {
      await links.purgeFiles(linkIds);
      if (logos) await branding.purgeFiles(accountId);
    },
    // A store that is down for a while: the last try is some two hours on; the orphan sweep after that.
    maxAttempts: 8,
    backoffMs: (attempt) => 60_000 * 2 ** (attempt - 1),
    concurrency: 1,
    leaseMs: 5 * 60_000,
  };

  /**
   * Deletes the account of `source` once `confirm` accepts it (read before the links go, and
   * again under the account's lock before the row goes).
   */
  async function erase(source: ChangeSource, deletedBy: string | null, confirm: (account: AccountRow) => void): Promise<{ files: number }> {
    const { accountId } = source;
    const current = async (executor: Executor) => {
      const account = await findAccountById(executor, accountId);
      if (!account) throw notFound(`Account ${accountId}`);
      confirm(account);
      return account;
    };
    await current(db);
    // The links first, a batch a transaction: cut short (a crash), the account stays, with fewer
    // links, and asking again finishes it. Whatever is made meanwhile goes with the account row.
    let files = 0;
    let deleted: number;
    do {
      deleted = await db.transaction().execute(async (trx) => {
        const batch = await links.deleteSomeOf(accountId, LINKS_PER_BATCH, trx);
        if (batch.fileIds.length > 0) await jobs.enqueue(ACCOUNT_FILES_JOB, { accountId, linkIds: batch.fileIds }, { executor: trx });
        files += batch.fileIds.length;
        return batch.deleted;
      });
      await setImmediate();
    } while (deleted === LINKS_PER_BATCH);
    const people = await db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId);
      const account = await current(trx);
      const last = await links.deleteSomeOf(accountId, Number.MAX_SAFE_INTEGER, trx);
      files += last.fileIds.length;
      await jobs.enqueue(ACCOUNT_FILES_JOB, { accountId, linkIds: last.fileIds, logos: true }, { executor: trx });
      const people = await members.peopleOf(accountId, trx);
      const accountName = account.name ?? account.email;
      for (const person of people) {
        if (source.actor.type === 'user' && source.actor.id === person.userId) continue;
        await mail.accountDeleted(person.email, { accountId, accountName, deletedBy, signInDeleted: person.onlyHere }, trx);
      }
      await deleteAccount(trx, accountId);
      const leaving = people.filter((person) => person.onlyHere).map((person) => person.userId);
      await users.remove(leaving, trx);
      const details = { name: accountName, email: account.email, files, people: people.length, signInsDeleted: leaving.length };
      await audit.record(source, { action: 'account.deleted', target: { type: 'account', id: accountId }, details }, trx);
      return people;
    });
    // After the commit, as a removal does: a lookup under way saw the sessions and keys still there.
    for (const person of people) sessions.forgetUser(person.userId);
    apiKeys.forgetAccount(accountId);
    return { files };
  }

  return {
    job,

    /**
     * Proved like a sign-in (the current password, the second factor when on) and confirmed by
     * the account's name typed out, since nothing brings it back.
     */
    async close(principal: Principal, input: SelfProof & { accountName: string }, client: Client): Promise<void> {
      const person = await auth.provenPerson(principal, input, client, 'account deletion');
      await erase(principal, person.name || person.email, (account) => {
        const name = account.name ?? account.email;
        if (input.accountName.trim() !== name) throw unprocessable(`Type the account's name, ${name}, to delete it`);
      });
    },

    /** The operator's `linkvault accounts delete`: no one to prove or to type a name. */
    closeByOperator: (accountId: number) => erase(commandLineSource(accountId), null, () => {}),
  };
}

export type AccountClosure = ReturnType<typeof createAccountClosure>;
