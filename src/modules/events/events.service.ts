import type { Clock, Executor } from '../../db/executor.js';
import type { NewEvent } from './event-types.js';
import { insertEvent } from './events.repo.js';

/** A read model kept in step with the events, written in the same transaction (e.g. unique visitors). */
export type EventProjection = (trx: Executor, event: NewEvent, at: number) => Promise<void>;

/** The outbox side of events: modules record them; the dispatcher delivers them. */
export function createEventsService(deps: { clock: Clock; projections?: readonly EventProjection[] }) {
  const { clock, projections = [] } = deps;
  return {
    /**
     * Records `event` with its pending deliveries on `trx`, the transaction of the change
     * that caused it: the event exists if and only if that change is committed.
     */
    async record(trx: Executor, event: NewEvent): Promise<number> {
      const at = clock();
      const id = await insertEvent(trx, event, at);
      for (const project of projections) await project(trx, event, at);
      return id;
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
/** What a module that causes events depends on. */
export type EventRecorder = Pick<EventsService, 'record'>;
