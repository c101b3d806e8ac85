import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { MailOutboxRow } from '../../db/types.js';
import { claimDueMail, insertMail, markFailed, markLogged, markSent, scheduleRetry } from './outbox.repo.js';
import { createTransportCache, type MailTransportSettings } from './transport.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  accountId?: number | null;
}

export interface Mailer {
  /** Persists the message; returns at once. Never throws for SMTP problems. Accepts an optional Executor to enqueue inside a caller's transaction. */
  enqueue(mail: OutgoingMail, db?: Executor): Promise<number>;
  /** Sends everything due now (used by tests and by the loop). Resolves with how many were handled. */
  drain(): Promise<number>;
  /** Starts the background loop (poll every ~1 s and also right after enqueue); stop() ends it and closes transports. */
  start(): void;
  stop(): Promise<void>;
}

/** The part of a pino / Fastify logger the mailer uses. */
export interface MailLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface MailerDeps {
  db: Db;
  clock: Clock;
  log: MailLog;
  /** SMTP_URL + MAIL_FROM, or null: then messages go to the log. */
  systemTransport: MailTransportSettings | null;
  /** An account's own SMTP settings (from its branding), or null to use the system transport. */
  accountTransport?: (accountId: number) => Promise<MailTransportSettings | null>;
  /** Attempts before a message is given up as 'failed' (default 8). */
  maxAttempts?: number;
  /** Delay after the n-th failed attempt (default 2 s, 4 s, 8 s … capped at 10 min). */
  backoffMs?: (attempt: number) => number;
  /** Messages sent at the same time by this process (default 4), so one slow server holds only one. */
  concurrency?: number;
  /** Poll interval of the loop (default 1 s). */
  pollMs?: number;
  /** How long a claimed message stays reserved to this process; must outlast one SMTP exchange (default 2 min). */
  leaseMs?: number;
}

export function defaultBackoffMs(attempt: number): number {
  return Math.min(2_000 * 2 ** Math.max(0, attempt - 1), 10 * 60_000);
}

// One address, nothing that could smuggle in a second recipient or a header.
const SINGLE_ADDRESS = /^[^\s@,;<>"]+@[^\s@,;<>"]+$/;
const MAX_ERROR_LENGTH = 1000;

function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, MAX_ERROR_LENGTH);
}

export function createMailer(deps: MailerDeps): Mailer {
  const { db, clock, log, systemTransport, accountTransport } = deps;
  const maxAttempts = deps.maxAttempts ?? 8;
  const backoffMs = deps.backoffMs ?? defaultBackoffMs;
  const concurrency = deps.concurrency ?? 4;
  const pollMs = deps.pollMs ?? 1_000;
  const leaseMs = deps.leaseMs ?? 120_000;
  const transports = createTransportCache();

  let running = false;
  let poller: NodeJS.Timeout | undefined;
  const workers = new Set<Promise<void>>();
  // Set when a wake-up found every slot busy: the next worker to finish looks again.
  let lookAgain = false;

  async function chooseTransport(accountId: number | null): Promise<MailTransportSettings | null> {
    if (accountId !== null && accountTransport) {
      const own = await accountTransport(accountId);
      if (own) return own;
    }
    return systemTransport;
  }

  async function deliver(mail: MailOutboxRow): Promise<void> {
    let settings: MailTransportSettings | null;
    try {
      settings = await chooseTransport(mail.account_id);
      if (settings) {
        await transports.get(settings).sendMail({
          from: settings.from,
          to: mail.to_address,
          subject: mail.subject,
          text: mail.text_body,
          ...(mail.html_body !== null ? { html: mail.html_body } : {}),
        });
      }
    } catch (error) {
      await recordFailure(mail, error);
      return;
    }
    // Outside the try: a database error here must not be taken for an SMTP failure and resend the message.
    if (settings) {
      await markSent(db, mail, clock());
    } else {
      // Local trial without SMTP: the text is logged so codes and links can be read from the log.
      log.info(
        { mailId: mail.id, to: mail.to_address, subject: mail.subject, text: mail.text_body },
        'mail not sent (no SMTP configured), logged instead',
      );
      await markLogged(db, mail, clock());
    }
  }

  async function recordFailure(mail: MailOutboxRow, error: unknown): Promise<void> {
    // Only the message text is kept: nodemailer errors carry the server reply, never the credentials.
    const reason = describeError(error);
    const code = (error as { code?: unknown } | null | undefined)?.code;
    const context = { mailId: mail.id, to: mail.to_address, attempt: mail.attempts, code, error: reason };
    if (mail.attempts >= maxAttempts) {
      log.error(context, 'mail failed for good');
      await markFailed(db, mail, reason);
    } else {
      const delay = backoffMs(mail.attempts);
      log.warn({ ...context, retryInMs: delay }, 'mail not sent, will retry');
      await scheduleRetry(db, mail, clock() + delay, reason);
    }
  }

  /** Claims and sends until nothing is due; `onClaim` lets the loop open another slot for the next message. */
  async function work(onClaim?: () => void): Promise<number> {
    let handled = 0;
    for (;;) {
      const mail = await claimDueMail(db, clock(), leaseMs);
      if (!mail) return handled;
      onClaim?.();
      await deliver(mail);
      handled++;
    }
  }

  async function drain(): Promise<number> {
    // allSettled: a worker's database error must not return while the others are still sending.
    const results = await Promise.allSettled(Array.from({ length: concurrency }, () => work()));
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    return results.reduce((sum, result) => sum + (result.status === 'fulfilled' ? result.value : 0), 0);
  }

  /**
   * Starts a worker in a free slot. Each worker that claims a message offers the next one to
   * another slot, so a message stuck on a slow server holds one slot and the rest keep flowing.
   */
  function pump(): void {
    if (!running) return;
    if (workers.size >= concurrency) {
      lookAgain = true;
      return;
    }
    lookAgain = false;
    const worker: Promise<void> = work(pump)
      .then(
        () => undefined,
        (error: unknown) => log.error({ error: describeError(error) }, 'mail dispatcher failed to read the outbox'),
      )
      .finally(() => {
        workers.delete(worker);
        if (lookAgain) pump();
      });
    workers.add(worker);
  }

  return {
    async enqueue(mail, executor = db) {
      if (!SINGLE_ADDRESS.test(mail.to)) throw new TypeError(`not a single e-mail address: ${JSON.stringify(mail.to)}`);
      const id = await insertMail(
        executor,
        {
          accountId: mail.accountId ?? null,
          to: mail.to,
          subject: mail.subject.replace(/[\r\n]+/g, ' '),
          text: mail.text,
          html: mail.html ?? null,
        },
        clock(),
      );
      // Inside a caller's transaction the row is not visible yet: the next poll picks it up.
      if (running) setImmediate(pump);
      return id;
    },
    drain,
    start() {
      if (running) return;
      running = true;
      // The loop alone must not keep the process alive; the HTTP server does that.
      poller = setInterval(pump, pollMs).unref();
      pump();
    },
    async stop() {
      running = false;
      clearInterval(poller);
      poller = undefined;
      await Promise.all(workers);
      transports.closeAll();
    },
  };
}
