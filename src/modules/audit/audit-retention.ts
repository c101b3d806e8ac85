import type { Clock } from '../../db/executor.js';
import { createRetentionSweep, type SweepLog } from '../../core/retention-sweep.js';
import type { AuditLog } from './audit.service.js';

/** Deletes audit entries older than AUDIT_RETENTION_DAYS, at start and then hourly, 1000 at a time. */
export function createAuditRetention(deps: {
  audit: Pick<AuditLog, 'deleteBefore'>;
  clock: Clock;
  retentionDays: number;
  log: SweepLog;
  intervalMs?: number;
  batchSize?: number;
}) {
  const { audit, ...schedule } = deps;
  return createRetentionSweep({ rows: 'audit entries', deleteBefore: (before, limit) => audit.deleteBefore(before, limit), ...schedule });
}

export type AuditRetention = ReturnType<typeof createAuditRetention>;
