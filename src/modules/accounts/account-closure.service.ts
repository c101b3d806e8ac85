import type { Principal } from '../../core/auth.js';
import { notFound, unprocessable } from '../../core/errors.js';
import type { Db } from '../../db/kysely.js';
import type { JobKind, JobQueue } from '../../infra/jobs/index.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import type { AuditLog } from '../audit/audit.service.js';
import type { AuthService, SelfProof } from '../auth/auth.service.js';
import type { BrandingService } from '../branding/branding.service.js';
import type { LinksService } from '../links/links.service.js';
import type { MembersService } from '../members/members.service.js';
import type { Client, SessionsService } from '../sessions/sessions.service.js';
import type { UsersService } from '../users/users.service.js';
import { deleteAccount, findAccountById, lockAccount } from './accounts.repo.js';

export const ACCOUNT_FILES_JOB = 'account.purge-files';
/** Links whose files one job deletes: a job is retried whole, and an account may hold 100 000 links. */
const LINKS_PER_JOB = 200;

interface AccountFiles {
  accountId: number;
  linkIds: string[];
}

/**
 * An owner deletes the account and everything in it: links, rooms, portals, views, purchases,
 * members, keys, settings (the database's foreign keys cascade from the account row). Its files
 * go after the commit, by durable jobs written in the same transaction; the orphan sweep is
 * the backstop, as for a deleted link. People whose only account it was lose their sign-in too:
 * nothing of theirs stays. The server's audit log keeps the entry of the deletion.
 */
export function createAccountClosure(deps: {
  db: Db;
  auth: Pick<AuthService, 'provenPerson'>;
  members: Pick<MembersService, 'peopleOf'>;
  users: Pick<UsersService, 'remove'>;
  sessions: Pick<SessionsService, 'forgetUser'>;
  apiKeys: Pick<ApiKeysService, 'forgetAccount'>;
  links: Pick<LinksService, 'fileIdsOf' | 'purgeFiles'>;
  branding: Pick<BrandingService, 'purgeFiles'>;
  audit: Pick<AuditLog, 'record'>;
  jobs: Pick<JobQueue, 'enqueueMany'>;
}) {
  const { db, auth, members, users, sessions, apiKeys, links, branding, audit, jobs } = deps;

  const job: JobKind<AccountFiles> = {
    async run({ accountId, linkIds }) {
      await links.purgeFiles(linkIds);
      await branding.purgeFiles(accountId);
    },
    // A store that is down for a while: the last try is some two hours on; the orphan sweep after that.
    maxAttempts: 8,
    backoffMs: (attempt) => 60_000 * 2 ** (attempt - 1),
    concurrency: 1,
    leaseMs: 5 * 60_000,
  };

  return {
    job,

    /**
     * Proved like a sign-in (the current password, the second factor when on) and confirmed by
     * the account's name typed out, since nothing brings it back.
     */
    async close(principal: Principal, input: SelfProof & { accountName: string }, client: Client): Promise<void> {
      const { accountId } = principal;
      await auth.provenPerson(principal, input, client, 'account deletion');
      const people = await db.transaction().execute(async (trx) => {
        await lockAccount(trx, accountId);
        const account = await findAccountById(trx, accountId);
        if (!account) throw notFound(`Account ${accountId}`);
        const name = account.name ?? account.email;
        if (input.accountName.trim() !== name) throw unprocessable(`Type the account's name, ${name}, to delete it`);
        const linkIds = await links.fileIdsOf(accountId, trx);
        const people = await members.peopleOf(accountId, trx);
        const batches: AccountFiles[] = [{ accountId, linkIds: linkIds.slice(0, LINKS_PER_JOB) }];
        for (let start = LINKS_PER_JOB; start < linkIds.length; start += LINKS_PER_JOB) {
          batches.push({ accountId, linkIds: linkIds.slice(start, start + LINKS_PER_JOB) });
        }
        await jobs.enqueueMany(ACCOUNT_FILES_JOB, batches, { executor: trx });
        await deleteAccount(trx, accountId);
        const leaving = people.filter((person) => person.onlyHere).map((person) => person.userId);
        await users.remove(leaving, trx);
        const details = { name, email: account.email, files: linkIds.length, people: people.length, signInsDeleted: leaving.length };
        await audit.record(principal, { action: 'account.deleted', target: { type: 'account', id: accountId }, details }, trx);
        return people;
      });
      // After the commit, as a removal does: a lookup under way saw the sessions and keys still there.
      for (const person of people) sessions.forgetUser(person.userId);
      apiKeys.forgetAccount(accountId);
    },
  };
}

export type AccountClosure = ReturnType<typeof createAccountClosure>;
