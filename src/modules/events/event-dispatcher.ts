import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { claimDueDeliveries, loadDeliveries, markDelivered, markFailed, scheduleRetry, type DeliveryClaim } from './events.repo.js';
import { startPeriodicJob, type PeriodicJob } from '../../core/periodic-job.js';

export type DueDelivery = Awaited<ReturnType<typeof loadDeliveries>>[number];

/** Sends one delivery; throws to have it retried, or a PermanentDeliveryError to give up now. */
export type DeliverFn = (delivery: DueDelivery) => Promise<void>;

/** A failure that retrying cannot fix (the webhook is gone, refused by policy, …). */
export class PermanentDeliveryError extends Error {
  override name = 'PermanentDeliveryError';
}

export interface DispatchLog {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface EventDispatcherOptions {
  db: Db;
  clock: Clock;
  log: DispatchLog;
  deliver: DeliverFn;
  pollMs: number;
  /** delay after the first failed attempt; doubled after each further one, capped at an hour */
  retryBaseMs: number;
  maxAttempts: number;
  /** deliveries sent at the same time by this process */
  concurrency?: number;
  /** how long a claimed delivery stays reserved; must outlast one request (they time out at 10 s) */
  leaseMs?: number;
}

const MAX_RETRY_DELAY_MS = 3_600_000;
const MAX_ERROR_LENGTH = 500;

export function retryDelayMs(retryBaseMs: number, attempt: number): number {
  return Math.min(retryBaseMs * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
}

/**
 * Delivers the events outbox: claims due deliveries with a lease (so with several replicas
 * each is sent by one of them), sends them, and records the outcome with backoff. All
 * state is in the database: after a restart, pending deliveries go out on the first poll.
 */
export function createEventDispatcher(options: EventDispatcherOptions) {
  const { db, clock, log, deliver, pollMs, retryBaseMs, maxAttempts } = options;
  const concurrency = options.concurrency ?? 4;
  const leaseMs = options.leaseMs ?? 60_000;
  let job: PeriodicJob | undefined;
  let stopping = false;

  async function recordFailure(claim: DeliveryClaim, delivery: DueDelivery | undefined, error: unknown): Promise<void> {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);
    const context = {
      deliveryId: claim.id,
      eventId: delivery?.event.id,
      eventType: delivery?.event.type,
      integrationId: delivery?.integration.id,
      attempt: claim.attempts,
      error: reason,
    };
    if (error instanceof PermanentDeliveryError || claim.attempts >= maxAttempts) {
      log.error(context, 'event delivery failed for good');
      await markFailed(db, claim, reason);
    } else {
      const delay = retryDelayMs(retryBaseMs, claim.attempts);
      log.warn({ ...context, retryInMs: delay }, 'event delivery failed, will retry');
      await scheduleRetry(db, claim, clock() + delay, reason);
    }
  }

  async function attempt(claim: DeliveryClaim, delivery: DueDelivery | undefined): Promise<void> {
    try {
      if (!delivery) throw new PermanentDeliveryError('the event or integration is gone');
      if (!delivery.integration.enabled) throw new PermanentDeliveryError('the integration is disabled');
      await deliver(delivery);
    } catch (error) {
      await recordFailure(claim, delivery, error);
      return;
    }
    // Outside the try: a database error here must not count as a failed send and resend it.
    await markDelivered(db, claim.id, clock());
  }

  /** Sends everything due now; resolves with how many deliveries were attempted. */
  async function drain(): Promise<number> {
    let attempted = 0;
    while (!stopping) {
      const claims = await claimDueDeliveries(db, clock(), leaseMs, concurrency);
      if (claims.length === 0) break;
      const loaded = await loadDeliveries(db, claims.map((claim) => claim.id));
      const deliveries = new Map(loaded.map((delivery) => [delivery.deliveryId, delivery]));
      // allSettled: a database error on one must not return while the others are still sending.
      const outcomes = await Promise.allSettled(claims.map((claim) => attempt(claim, deliveries.get(claim.id))));
      const failure = outcomes.find((outcome) => outcome.status === 'rejected');
      if (failure) throw failure.reason;
      attempted += claims.length;
    }
    return attempted;
  }

  return {
    drain,
    start(): void {
      if (job) return;
      stopping = false;
      job = startPeriodicJob(drain, pollMs, (error) =>
        log.error({ error: error instanceof Error ? error.message : String(error) }, 'event dispatcher failed to read the outbox'),
      );
    },
    /** Stops polling and waits for the deliveries in flight to be recorded. */
    async stop(): Promise<void> {
      stopping = true;
      await job?.stop();
      job = undefined;
    },
  };
}

export type EventDispatcher = ReturnType<typeof createEventDispatcher>;
