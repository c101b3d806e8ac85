import { setImmediate as nextTurn } from 'node:timers/promises';
import { scheduledJob } from '../../core/periodic-job.js';
import { failureLevel, type Clock } from '../../db/executor.js';
import type { AuditLog } from './audit.service.js';

const DAY_MS = 86_400_000;

/**
 * Deletes audit entries older than AUDIT_RETENTION_DAYS, at start and then hourly, in batches
 * with a turn of the event loop between them, so a long backlog never holds the database (on
 * SQLite, the event loop) for long. Replicas may all run it.
 */
export function createAuditRetention(deps: {
  audit: Pick<AuditLog, 'deleteBefore'>;
  clock: Clock;
  retentionDays: number;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  intervalMs?: number;
  batchSize?: number;
}) {
  const { audit, clock, retentionDays, log } = deps;
  const batchSize = deps.batchSize ?? 1000;

  async function sweep(): Promise<number> {
    const before = clock() - retentionDays * DAY_MS;
    let deleted = 0;
    for (;;) {
      const batch = await audit.deleteBefore(before, batchSize);
      deleted += batch;
      if (batch < batchSize) break;
      await nextTurn();
    }
    if (deleted > 0) log.info({ deleted }, 'deleted audit entries past their retention');
    return deleted;
  }

  return {
    sweep,
    ...scheduledJob(sweep, deps.intervalMs ?? 3_600_000, (err) => log[failureLevel(err)]({ err }, 'audit retention sweep failed')),
  };
}

export type AuditRetention = ReturnType<typeof createAuditRetention>;
