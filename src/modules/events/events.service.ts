import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { fairKeyOfAccount, type JobQueue } from '../../infra/jobs/index.js';
import { EVENT_DELIVERY_JOB, type EventDeliveryJob } from './event-dispatcher.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import type { NewEvent } from './event-types.js';
import { deleteEventsBefore, insertEvent } from './events.repo.js';

/** A read model kept in step with the events, written in the same transaction (e.g. unique visitors). */
export type EventProjection = (trx: Executor, event: NewEvent, at: number) => Promise<void>;

/** The outbox side of events: modules record them; the job runner delivers them (event-dispatcher.ts). */
export function createEventsService(deps: {
  db: Db;
  clock: Clock;
  jobs: Pick<JobQueue, 'enqueueMany'>;
  /** Each enabled integration of the account gets a delivery; one added later does not get old events. */
  integrations: Pick<IntegrationsService, 'enabledIds'>;
  projections?: readonly EventProjection[];
  /** Other fan-outs of each event (webhooks), on the same transaction. */
  subscribers?: readonly EventProjection[];
}) {
  const { db, clock, jobs, integrations, projections = [], subscribers = [] } = deps;
  return {
    /**
     * Records `event` with its pending deliveries and their jobs on `trx`, the transaction of
     * the change that caused it: the event exists if and only if that change is committed.
     */
    async record(trx: Executor, event: NewEvent): Promise<number> {
      const at = event.at ?? clock();
      const { id, deliveryIds } = await insertEvent(trx, event, at, await integrations.enabledIds(event.accountId, trx));
      await jobs.enqueueMany(
        EVENT_DELIVERY_JOB,
        deliveryIds.map((deliveryId): EventDeliveryJob => ({ deliveryId })),
        { executor: trx, fairKey: fairKeyOfAccount(event.accountId) },
      );
      for (const project of [...projections, ...subscribers]) await project(trx, event, at);
      return id;
    },

    /** For the retention sweep: the read models keep the totals, so only the activity log and its deliveries go. */
    deleteBefore: (before: number, limit: number) => deleteEventsBefore(db, before, limit),
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
/** What a module that causes events depends on. */
export type EventRecorder = Pick<EventsService, 'record'>;
