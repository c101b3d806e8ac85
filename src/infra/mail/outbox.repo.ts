import type { Executor } from '../../db/executor.js';
import type { FailedAttemptRecord } from '../jobs/index.js';
import type { MailOutboxRow, MailStatus } from '../../db/types.js';
import type { SealedMessage } from './sealed-message.js';

export interface NewOutboxMail {
  accountId: number | null;
  to: string;
  kind: string | null;
  /** The subject kept once the message is gone: masked when the one sent carries a one-time code. */
  subject: string;
  message: SealedMessage;
}

export interface OutboxFilter {
  status?: MailStatus;
  to?: string;
  accountId?: number;
}

export async function insertMail(db: Executor, mail: NewOutboxMail, now: number): Promise<number> {
  const row = await db
    .insertInto('mail_outbox')
    .values({
      account_id: mail.accountId,
      to_address: mail.to,
      kind: mail.kind,
      subject: mail.subject,
      ...mail.message,
      status: 'pending',
      next_attempt_at: now,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export function findMail(db: Executor, id: number): Promise<MailOutboxRow | undefined> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * What an outbox row keeps once its job has ended: who, what kind, when and how it went, never the
 * message, which carries live links and codes the database otherwise holds only as hashes.
 */
const WITHOUT_MESSAGE = { text_body: '', html_body: null, secret_subject: null } as const;

/** The job that sends the message ended: it left (`sent`), or went to the log for want of a transport (`logged`). */
export async function markDelivered(db: Executor, id: number, status: 'sent' | 'logged', attempts: number, now: number): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ status, attempts, sent_at: now, last_error: null, ...WITHOUT_MESSAGE })
    .where('id', '=', id)
    .execute();
}

/** A failed attempt, as the job runner decided it: retried at `next_attempt_at` (the message kept for it), or `failed` for good. */
export async function recordMailFailure(db: Executor, id: number, failure: FailedAttemptRecord): Promise<void> {
  const failedForGood = 'status' in failure;
  await db
    .updateTable('mail_outbox')
    .set(failedForGood ? { ...failure, ...WITHOUT_MESSAGE } : failure)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Deletes up to `limit` rows written before `before`; answers how many went. */
export async function deleteMailBefore(db: Executor, before: number, limit: number): Promise<number> {
  const ids = db.selectFrom('mail_outbox').select('id').where('created_at', '<', before).limit(limit);
  const result = await db.deleteFrom('mail_outbox').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** For tests and diagnostics: oldest first. */
export function listMail(db: Executor, filter: OutboxFilter = {}): Promise<MailOutboxRow[]> {
  return db
    .selectFrom('mail_outbox')
    .selectAll()
    .$if(filter.status !== undefined, (query) => query.where('status', '=', filter.status!))
    .$if(filter.to !== undefined, (query) => query.where('to_address', '=', filter.to!))
    .$if(filter.accountId !== undefined, (query) => query.where('account_id', '=', filter.accountId!))
    .orderBy('id')
    .execute();
}
