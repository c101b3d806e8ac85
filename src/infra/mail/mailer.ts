import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import {
  failedAttemptRecord,
  PermanentJobError,
  type JobFailure,
  type JobKind,
  type JobLog,
  type JobRunner,
  type RunningJob,
} from '../jobs/index.js';
import type { MailOutboxRow } from '../../db/types.js';
import { deleteMailBefore, findMail, insertMail, markDelivered, recordMailFailure } from './outbox.repo.js';
import { openMessage, sealMessage } from './sealed-message.js';
import { pinToPublicAddress, RefusedSmtpHostError, type HostLookup } from './smtp-destination.js';
import { createTransportCache, type MailTransportSettings } from './transport.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  accountId?: number | null;
  /** What the message is (its template), kept in the outbox after the message itself is gone. */
  kind?: string;
  /** The subject the outbox keeps, when `subject` carries a one-time code. */
  maskedSubject?: string;
}

/** The job kind that sends one message of the outbox; its payload names the row. */
export const MAIL_JOB = 'mail.send';
export interface MailJob {
  mailId: number;
}

export interface Mailer {
  /**
   * Writes the message and the job that sends it, in the caller's transaction when one is given
   * (the outbox pattern: the message exists if and only if the change commits). Never throws for SMTP problems.
   */
  enqueue(mail: OutgoingMail, db?: Executor): Promise<number>;
  /** Sends every message due now, here (tests). Resolves with how many were handled. */
  drain(): Promise<number>;
  /** Deletes up to `limit` outbox rows written before `before` (the retention sweep); resolves with how many went. */
  deleteMailBefore(before: number, limit: number): Promise<number>;
  /** The `mail.send` kind, for the runtime to register on the job runner under MAIL_JOB. */
  readonly job: JobKind<MailJob>;
  /** Closes the SMTP connections (once the job runner has stopped). */
  close(): void;
}

/** The part of a pino / Fastify logger the mailer uses. */
export interface MailLog extends JobLog {
  info(obj: object, msg?: string): void;
}

export interface MailerDeps {
  db: Db;
  clock: Clock;
  log: MailLog;
  /** Seals each message while it waits in the outbox. */
  masterKey: Buffer;
  /** The job runner that runs MAIL_JOB (registered with `job`). */
  jobs: Pick<JobRunner, 'enqueue' | 'drain'>;
  /** SMTP_URL + MAIL_FROM, or null: then messages go to the log. */
  systemTransport: MailTransportSettings | null;
  /** An account's own SMTP settings (from its branding), or null to use the system transport. */
  accountTransport?: (accountId: number) => Promise<MailTransportSettings | null>;
  /**
   * ALLOW_PRIVATE_SMTP: an account's server may be a private or loopback address. Unset, its
   * host must resolve to public addresses only, checked when connecting (the system transport,
   * SMTP_URL, is the operator's own and never restricted).
   */
  allowPrivateAccountSmtp?: boolean;
  /** Resolves account SMTP host names for that check (default: the system resolver). */
  lookupAccountSmtpHost?: HostLookup;
  /** Attempts before a message is given up as 'failed' (default 8). */
  maxAttempts?: number;
  /** Delay after the n-th failed attempt (default 2 s, 4 s, 8 s … capped at 10 min). */
  backoffMs?: (attempt: number) => number;
  /** Messages sent at the same time by this process (default 4), so one slow server holds only one. */
  concurrency?: number;
  /** How often the job runner looks for due messages (default 1 s; it also looks right after enqueue). */
  pollMs?: number;
  /** How long a claimed message stays reserved to this process; must outlast one SMTP exchange (default 2 min). */
  leaseMs?: number;
}

export function defaultBackoffMs(attempt: number): number {
  return Math.min(2_000 * 2 ** Math.max(0, attempt - 1), 10 * 60_000);
}

// One address, nothing that could smuggle in a second recipient or a header.
const SINGLE_ADDRESS = /^[^\s@,;<>"]+@[^\s@,;<>"]+$/;
const oneLine = (subject: string) => subject.replace(/[\r\n]+/g, ' ');

export function createMailer(deps: MailerDeps): Mailer {
  const { db, clock, log, masterKey, jobs, systemTransport, accountTransport, allowPrivateAccountSmtp = false, lookupAccountSmtpHost } = deps;
  const transports = createTransportCache();

  async function chooseTransport(accountId: number | null): Promise<MailTransportSettings | null> {
    if (accountId !== null && accountTransport) {
      const own = await accountTransport(accountId);
      // A refused server throws: the message fails, it is never handed to the system transport instead.
      if (own) return allowPrivateAccountSmtp ? own : pinToPublicAddress(own, lookupAccountSmtpHost);
    }
    return systemTransport;
  }

  function openOrGiveUp(mail: MailOutboxRow) {
    try {
      return openMessage(masterKey, mail);
    } catch (error) {
      // Another master key, or a message moved to another row: no retry would open it.
      throw new PermanentJobError(`the message does not open: ${(error as Error).message}`);
    }
  }

  async function send({ mailId }: MailJob, job: RunningJob): Promise<void> {
    const mail = await findMail(db, mailId);
    // Sent or given up already (a job that ran twice), or gone with its account's data.
    if (mail?.status !== 'pending') return;
    const settings = await chooseTransport(mail.account_id);
    const { subject, text, html } = openOrGiveUp(mail);
    if (!settings) {
      // Local trial without SMTP: the text is logged so codes and links can be read from the log.
      log.info({ mailId: mail.id, to: mail.to_address, subject, text }, 'mail not sent (no SMTP configured), logged instead');
      return markDelivered(db, mail.id, 'logged', job.attempt, clock());
    }
    await transports.get(settings).sendMail({ from: settings.from, to: mail.to_address, subject, text, ...(html !== null ? { html } : {}) });
    // Recorded even if the lease ran out meanwhile: the message did leave.
    await markDelivered(db, mail.id, 'sent', job.attempt, clock());
  }

  async function recordFailure(trx: Executor, { mailId }: MailJob, failure: JobFailure): Promise<void> {
    const mail = await findMail(trx, mailId);
    // Only the message text is kept: nodemailer errors carry the server reply, never the credentials.
    const code = (failure.error as { code?: unknown } | null | undefined)?.code;
    const context = { mailId, accountId: mail?.account_id, to: mail?.to_address, attempt: failure.attempt, code, error: failure.message };
    // A refused server is a PermanentJobError: the policy will refuse it as often as it is tried.
    if (failure.retry) log.warn({ ...context, retryInMs: failure.retry.inMs }, 'mail not sent, will retry');
    else if (failure.error instanceof RefusedSmtpHostError) log.warn(context, "mail not sent: the account's SMTP server is not allowed");
    else log.error(context, 'mail failed for good');
    await recordMailFailure(trx, mailId, failedAttemptRecord(failure));
  }

  return {
    async enqueue(mail, executor = db) {
      if (!SINGLE_ADDRESS.test(mail.to)) throw new TypeError(`not a single e-mail address: ${JSON.stringify(mail.to)}`);
      const subject = oneLine(mail.subject);
      const masked = mail.maskedSubject === undefined ? null : oneLine(mail.maskedSubject);
      const write = async (trx: Executor) => {
        const now = clock();
        const message = sealMessage(
          masterKey,
          { secretSubject: masked === null ? null : subject, text: mail.text, html: mail.html ?? null },
          mail.to,
          now,
        );
        const mailId = await insertMail(
          trx,
          { accountId: mail.accountId ?? null, to: mail.to, kind: mail.kind ?? null, subject: masked ?? subject, message },
          now,
        );
        await jobs.enqueue(MAIL_JOB, { mailId } satisfies MailJob, { executor: trx });
        return mailId;
      };
      // The row and its job go together: a message without its job would never be sent.
      return executor.isTransaction ? write(executor) : executor.transaction().execute(write);
    },
    drain: () => jobs.drain(MAIL_JOB),
    deleteMailBefore: (before, limit) => deleteMailBefore(db, before, limit),
    job: {
      run: send,
      onFailure: recordFailure,
      maxAttempts: deps.maxAttempts ?? 8,
      backoffMs: deps.backoffMs ?? defaultBackoffMs,
      concurrency: deps.concurrency ?? 4,
      pollMs: deps.pollMs ?? 1_000,
      leaseMs: deps.leaseMs ?? 120_000,
    },
    close: () => transports.closeAll(),
  };
}
