import type { Executor } from '../../db/executor.js';
import type { FailedAttemptRecord } from '../jobs/index.js';
import type { MailOutboxRow, MailStatus } from '../../db/types.js';

export interface NewOutboxMail {
  accountId: number | null;
  to: string;
  subject: string;
  text: string;
  html: string | null;
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
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html,
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

/** The job that sends the message ended: it left (`sent`), or went to the log for want of a transport (`logged`). */
export async function markDelivered(db: Executor, id: number, status: 'sent' | 'logged', attempts: number, now: number): Promise<void> {
  await db.updateTable('mail_outbox').set({ status, attempts, sent_at: now, last_error: null }).where('id', '=', id).execute();
}

/** A failed attempt, as the job runner decided it: retried at `next_attempt_at`, or `failed` for good. */
export async function recordMailFailure(db: Executor, id: number, failure: FailedAttemptRecord): Promise<void> {
  await db.updateTable('mail_outbox').set(failure).where('id', '=', id).where('status', '=', 'pending').execute();
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
