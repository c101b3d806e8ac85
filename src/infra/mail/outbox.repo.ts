import { type ExpressionBuilder, PostgresAdapter } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { Database, MailOutboxRow, MailStatus } from '../../db/types.js';

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

/** A row a dispatcher may take: still pending, due, and not leased by a live dispatcher. */
function claimable(eb: ExpressionBuilder<Database, 'mail_outbox'>, now: number) {
  return eb.and([
    eb('status', '=', 'pending'),
    eb('next_attempt_at', '<=', now),
    eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]),
  ]);
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

/**
 * Leases the oldest due message to this dispatcher and counts the attempt, in one statement.
 * The outer WHERE repeats the subquery's conditions on purpose: when two PostgreSQL replicas
 * race for the same row, the loser re-checks them on the winner's version and gets nothing
 * (the subquery's result alone would still match by id). SKIP LOCKED lets it take the next row
 * instead; SQLite runs one writer at a time and has no FOR UPDATE.
 */
export function claimDueMail(db: Executor, now: number, leaseMs: number): Promise<MailOutboxRow | undefined> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db
    .updateTable('mail_outbox')
    .set((eb) => ({ locked_until: now + leaseMs, attempts: eb('attempts', '+', 1) }))
    .where('id', '=', (eb) =>
      eb
        .selectFrom('mail_outbox')
        .select('id')
        .where((inner) => claimable(inner, now))
        .orderBy('id')
        .limit(1)
        .$if(postgres, (query) => query.forUpdate().skipLocked()),
    )
    .where((eb) => claimable(eb, now))
    .returningAll()
    .executeTakeFirst();
}

/** What a dispatcher holds after claimDueMail: the row and the lease it was given. */
export type MailClaim = Pick<MailOutboxRow, 'id' | 'locked_until'>;

/** Recorded even if the lease ran out meanwhile: the message did leave. */
export async function markSent(db: Executor, claim: MailClaim, now: number): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ status: 'sent', sent_at: now, locked_until: null, last_error: null })
    .where('id', '=', claim.id)
    .execute();
}

/** No transport configured: the message went to the server log instead. */
export async function markLogged(db: Executor, claim: MailClaim, now: number): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ status: 'logged', sent_at: now, locked_until: null })
    .where('id', '=', claim.id)
    .execute();
}

// A failure only counts while this dispatcher still holds its lease: once the lease expired
// and another replica took the row, it must not reschedule or fail that replica's attempt.
export async function scheduleRetry(db: Executor, claim: MailClaim, nextAttemptAt: number, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ next_attempt_at: nextAttemptAt, locked_until: null, last_error: error })
    .where('id', '=', claim.id)
    .where('status', '=', 'pending')
    .where('locked_until', '=', claim.locked_until)
    .execute();
}

export async function markFailed(db: Executor, claim: MailClaim, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ status: 'failed', locked_until: null, last_error: error })
    .where('id', '=', claim.id)
    .where('status', '=', 'pending')
    .where('locked_until', '=', claim.locked_until)
    .execute();
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
