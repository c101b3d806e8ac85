import { failureLevel, type Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { scheduledJob } from '../../core/periodic-job.js';
import { deleteInBatches } from '../../core/retention-sweep.js';
import type { PortalAccessService } from '../portals/portal-access.service.js';
import { deleteExpiredOtpCodes, deleteLapsedVisits } from './visits.repo.js';

/** Rows are kept this long past their expiry (for support questions), then deleted. */
export const LAPSED_ACCESS_GRACE_MS = 86_400_000;

/**
 * Deletes what visitors' ways in leave behind once no one can use it: visits whose gate window
 * closed without a view session, expired one-time codes and expired portal sessions, a day
 * after they expire. Visits that reached a view session are analytics and stay. At start and
 * then hourly, in batches with a turn of the event loop between them, so a long backlog never
 * holds the database (on SQLite, the event loop) for long. Replicas may all run it.
 */
export function createLapsedAccessSweeper(deps: {
  db: Db;
  clock: Clock;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  portalSessions: Pick<PortalAccessService, 'deleteExpiredSessions'>;
  intervalMs?: number;
  batchSize?: number;
}) {
  const { db, clock, log, portalSessions } = deps;
  const batchSize = deps.batchSize ?? 1000;

  const inBatches = (purge: (limit: number) => Promise<number>) => deleteInBatches(purge, batchSize);

  async function sweep() {
    const before = clock() - LAPSED_ACCESS_GRACE_MS;
    const deleted = {
      visits: await inBatches((limit) => deleteLapsedVisits(db, before, limit)),
      otpCodes: await inBatches((limit) => deleteExpiredOtpCodes(db, before, limit)),
      portalSessions: await inBatches((limit) => portalSessions.deleteExpiredSessions(before, limit)),
    };
    if (deleted.visits + deleted.otpCodes + deleted.portalSessions > 0) log.info(deleted, 'deleted lapsed visitor access');
    return deleted;
  }

  return {
    sweep,
    ...scheduledJob(sweep, deps.intervalMs ?? 3_600_000, (err) => log[failureLevel(err)]({ err }, 'lapsed-access sweep failed')),
  };
}
