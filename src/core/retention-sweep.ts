import { setImmediate as nextTurn } from 'node:timers/promises';
import { failureLevel, type Clock } from '../db/executor.js';
import { scheduledJob } from './periodic-job.js';

const DAY_MS = 86_400_000;

export interface SweepLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * Calls `purge(batchSize)` until it deletes less than a full batch, with a turn of the event
 * loop between batches, so a long backlog never holds the database (on SQLite, the event loop)
 * for long. Resolves with how many rows went.
 */
export async function deleteInBatches(purge: (limit: number) => Promise<number>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await purge(batchSize);
    total += deleted;
    if (deleted < batchSize) return total;
    await nextTurn();
  }
}

/** Deletes rows older than `retentionDays`, at start and then hourly, in batches. Replicas may all run it. */
export function createRetentionSweep(deps: {
  /** What the rows are, for the log: `audit entries`. */
  rows: string;
  deleteBefore: (before: number, limit: number) => Promise<number>;
  clock: Clock;
  retentionDays: number;
  log: SweepLog;
  intervalMs?: number;
  batchSize?: number;
}) {
  const { rows, deleteBefore, clock, retentionDays, log } = deps;
  const batchSize = deps.batchSize ?? 1000;

  async function sweep(): Promise<number> {
    const before = clock() - retentionDays * DAY_MS;
    const deleted = await deleteInBatches((limit) => deleteBefore(before, limit), batchSize);
    if (deleted > 0) log.info({ deleted }, `deleted ${rows} past their retention`);
    return deleted;
  }

  return {
    rows,
    sweep,
    ...scheduledJob(sweep, deps.intervalMs ?? 3_600_000, (err) => log[failureLevel(err)]({ err }, `${rows} retention sweep failed`)),
  };
}

export type RetentionSweep = ReturnType<typeof createRetentionSweep>;
