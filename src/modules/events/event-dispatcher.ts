import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { failedAttemptRecord, PermanentJobError, type JobFailure, type JobKind, type JobLog, type RunningJob } from '../../infra/jobs/index.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import { loadDelivery, markDelivered, recordDeliveryFailure } from './events.repo.js';

/** The job kind that sends one delivery (an event to one integration); its payload names the row. */
export const EVENT_DELIVERY_JOB = 'event.deliver';
export interface EventDeliveryJob {
  deliveryId: number;
}

type IntegrationTarget = NonNullable<Awaited<ReturnType<IntegrationsService['deliveryTarget']>>>;

/** A delivery with its event and where it goes. */
export type DueDelivery = Omit<NonNullable<Awaited<ReturnType<typeof loadDelivery>>>, 'integrationId'> & { integration: IntegrationTarget };

/** Sends one delivery; throws to have it retried, or a PermanentDeliveryError to give up now. */
export type DeliverFn = (delivery: DueDelivery) => Promise<void>;

/** A failure that retrying cannot fix (the webhook is gone, refused by policy, …). */
export class PermanentDeliveryError extends PermanentJobError {
  override name = 'PermanentDeliveryError';
}

export interface EventDispatcherOptions {
  db: Db;
  clock: Clock;
  log: JobLog;
  integrations: Pick<IntegrationsService, 'deliveryTarget'>;
  deliver: DeliverFn;
  /** EVENT_POLL_MS: how soon a recorded event goes out (deliveries wait for the poll, as they always did) */
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

export function retryDelayMs(retryBaseMs: number, attempt: number): number {
  return Math.min(retryBaseMs * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
}

/**
 * The `event.deliver` job kind, registered on the job runner under EVENT_DELIVERY_JOB: sends
 * a delivery of the events outbox and keeps its row (status, attempts, last error) in step.
 * The runner holds the lease, the retries and the restart: pending deliveries go out on the
 * first poll after a restart, each by one replica.
 */
export function createEventDispatcher(options: EventDispatcherOptions): JobKind<EventDeliveryJob> {
  const { db, clock, log, integrations, deliver, retryBaseMs } = options;

  /** The delivery with its event and integration, or undefined when either is gone. */
  async function dueDelivery(executor: Executor, deliveryId: number): Promise<DueDelivery | undefined> {
    const found = await loadDelivery(executor, deliveryId);
    if (!found) return undefined;
    const { integrationId, ...delivery } = found;
    const integration = await integrations.deliveryTarget(integrationId, executor);
    return integration && { ...delivery, integration };
  }

  async function send({ deliveryId }: EventDeliveryJob, job: RunningJob): Promise<void> {
    const delivery = await dueDelivery(db, deliveryId);
    if (!delivery) throw new PermanentDeliveryError('the event or integration is gone');
    // Delivered or given up already: a job that ran twice.
    if (delivery.status !== 'pending') return;
    if (!delivery.integration.enabled) throw new PermanentDeliveryError('the integration is disabled');
    await deliver(delivery);
    await markDelivered(db, deliveryId, job.attempt, clock());
  }

  async function recordFailure(trx: Executor, { deliveryId }: EventDeliveryJob, failure: JobFailure): Promise<void> {
    const delivery = await dueDelivery(trx, deliveryId);
    const context = {
      deliveryId,
      eventId: delivery?.event.id,
      eventType: delivery?.event.type,
      integrationId: delivery?.integration.id,
      attempt: failure.attempt,
      error: failure.message,
    };
    if (failure.retry) log.warn({ ...context, retryInMs: failure.retry.inMs }, 'event delivery failed, will retry');
    else log.error(context, 'event delivery failed for good');
    await recordDeliveryFailure(trx, deliveryId, failedAttemptRecord(failure));
  }

  return {
    run: send,
    onFailure: recordFailure,
    maxAttempts: options.maxAttempts,
    backoffMs: (attempt) => retryDelayMs(retryBaseMs, attempt),
    pollMs: options.pollMs,
    concurrency: options.concurrency ?? 4,
    leaseMs: options.leaseMs ?? 60_000,
    runOnEnqueue: false,
  };
}
