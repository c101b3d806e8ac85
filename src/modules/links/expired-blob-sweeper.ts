import { scheduledJob } from '../../core/periodic-job.js';
import type { LinksService } from './links.service.js';
import { failureLevel } from '../../db/executor.js';

const DAY_MS = 86_400_000;

/**
 * Deletes the files of links expired longer than the retention period, at start and then
 * hourly. Expiry itself needs no job (it is checked on every request); this only frees space.
 * Replicas may all run it: deleting a blob twice is harmless.
 */
export function createExpiredBlobSweeper(deps: {
  links: Pick<LinksService, 'purgeExpiredBlobs'>;
  retentionDays: number;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  intervalMs?: number;
}) {
  const { links, retentionDays, log } = deps;
  const sweep = async () => {
    const purged = await links.purgeExpiredBlobs(retentionDays * DAY_MS);
    if (purged > 0) log.info({ purged }, 'deleted the files of long-expired links');
  };
  return scheduledJob(sweep, deps.intervalMs ?? 3_600_000, (err) => log[failureLevel(err)]({ err }, 'expired-file sweep failed'));
}
