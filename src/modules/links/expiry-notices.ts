import { failureLevel, type Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { EventRecorder } from '../events/events.service.js';
import { scheduledJob } from '../../core/periodic-job.js';
import { claimNewlyExpiredLinks } from './links.repo.js';

const BATCH = 200;

/**
 * link.expired has no request that causes it: a link simply passes its expiry. This job
 * notices that (at start, then every minute) and records the event once per link, in the
 * same transaction that marks the link as noticed, so a retry or a second replica cannot
 * record it twice. Notifications may thus lag the expiry by up to a minute.
 */
export function createExpiryNotices(deps: {
  db: Db;
  clock: Clock;
  events: EventRecorder;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  intervalMs?: number;
}) {
  const { db, clock, events, log } = deps;

  /** Records link.expired for every link that expired since the last run; returns how many. */
  async function recordNewlyExpired(): Promise<number> {
    let recorded = 0;
    for (;;) {
      const batch = await db.transaction().execute(async (trx) => {
        const expired = await claimNewlyExpiredLinks(trx, clock(), BATCH);
        for (const link of expired) {
          await events.record(trx, { accountId: link.account_id, type: 'link.expired', linkId: link.id, payload: { linkName: link.name } });
        }
        return expired.length;
      });
      recorded += batch;
      if (batch < BATCH) return recorded;
    }
  }

  return {
    recordNewlyExpired,
    ...scheduledJob(recordNewlyExpired, deps.intervalMs ?? 60_000, (err) => log[failureLevel(err)]({ err }, 'could not record link expiries')),
  };
}

export type ExpiryNotices = ReturnType<typeof createExpiryNotices>;
