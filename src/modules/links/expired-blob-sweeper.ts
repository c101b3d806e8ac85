import type { FastifyBaseLogger } from 'fastify';
import type { LinksService } from './links.service.js';

const DAY = 86_400_000;

/**
 * Deletes the files of links expired longer than the retention period, at start and then
 * hourly. Expiry itself needs no job (it is checked on every request); this only frees space.
 * Replicas may all run it: deleting a blob twice is harmless.
 */
export function startExpiredBlobSweeper(
  links: Pick<LinksService, 'purgeExpiredBlobs'>,
  retentionDays: number,
  log: FastifyBaseLogger,
  intervalMs = 3_600_000,
) {
  const sweep = () =>
    links
      .purgeExpiredBlobs(retentionDays * DAY)
      .then((purged) => purged > 0 && log.info({ purged }, 'deleted the files of long-expired links'))
      .catch((err: unknown) => log.error({ err }, 'expired-file sweep failed'));
  void sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
