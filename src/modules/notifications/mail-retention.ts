import type { Clock } from '../../db/executor.js';
import type { Mailer } from '../../infra/mail/index.js';
import { createRetentionSweep, type SweepLog } from '../../core/retention-sweep.js';

/**
 * Deletes outbox rows older than MAIL_RETENTION_DAYS, at start and then hourly, 1000 at a time:
 * what is left of a mail once it is sent (who, what kind, when, how it went) is for support
 * questions, not for ever.
 */
export function createMailRetention(deps: {
  mailer: Pick<Mailer, 'deleteMailBefore'>;
  clock: Clock;
  retentionDays: number;
  log: SweepLog;
  intervalMs?: number;
  batchSize?: number;
}) {
  const { mailer, ...schedule } = deps;
  return createRetentionSweep({ rows: 'mail outbox rows', deleteBefore: (before, limit) => mailer.deleteMailBefore(before, limit), ...schedule });
}
