import type { Executor } from '../../db/executor.js';
import type { FailedAttemptRecord } from '../../infra/jobs/index.js';
import type { EventPayload, EventType, NewEvent } from './event-types.js';

/** Inserts the event and one pending delivery per integration given; resolves with both ids. */
export async function insertEvent(
  db: Executor,
  event: NewEvent,
  now: number,
  integrationIds: readonly number[],
): Promise<{ id: number; deliveryIds: number[] }> {
  const { id } = await db
    .insertInto('events')
    .values({ account_id: event.accountId, type: event.type, link_id: event.linkId, payload: JSON.stringify(event.payload), created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (integrationIds.length === 0) return { id, deliveryIds: [] };
  const deliveries = await db
    .insertInto('event_deliveries')
    .values(
      integrationIds.map((integrationId) => ({ event_id: id, integration_id: integrationId, status: 'pending' as const, next_attempt_at: now })),
    )
    .returning('id')
    .execute();
  return { id, deliveryIds: deliveries.map((delivery) => delivery.id) };
}

/** Deletes up to `limit` events recorded before `before` (their chat deliveries go with them); answers how many went. */
export async function deleteEventsBefore(db: Executor, before: number, limit: number): Promise<number> {
  const ids = db.selectFrom('events').select('id').where('created_at', '<', before).limit(limit);
  const result = await db.deleteFrom('events').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A delivery with its event, or undefined when it is gone. */
export async function loadDelivery(db: Executor, deliveryId: number) {
  const row = await db
    .selectFrom('event_deliveries as delivery')
    .innerJoin('events as event', 'event.id', 'delivery.event_id')
    .select([
      'delivery.id as deliveryId',
      'delivery.status as status',
      'event.id as eventId',
      'event.account_id as accountId',
      'event.type as type',
      'event.link_id as linkId',
      'event.payload as payload',
      'event.created_at as createdAt',
      'delivery.integration_id as integrationId',
    ])
    .where('delivery.id', '=', deliveryId)
    .executeTakeFirst();
  return (
    row && {
      deliveryId: row.deliveryId,
      status: row.status,
      event: {
        id: row.eventId,
        accountId: row.accountId,
        type: row.type as EventType,
        linkId: row.linkId,
        payload: JSON.parse(row.payload) as EventPayload,
        createdAt: Number(row.createdAt),
      },
      integrationId: row.integrationId,
    }
  );
}

/** Recorded even if the job's lease ran out meanwhile: the message did arrive. */
export async function markDelivered(db: Executor, id: number, attempts: number, now: number): Promise<void> {
  await db.updateTable('event_deliveries').set({ status: 'delivered', attempts, delivered_at: now, last_error: null }).where('id', '=', id).execute();
}

/** A failed attempt, as the job runner decided it: retried at `next_attempt_at`, or `failed` for good. */
export async function recordDeliveryFailure(db: Executor, id: number, failure: FailedAttemptRecord): Promise<void> {
  await db.updateTable('event_deliveries').set(failure).where('id', '=', id).where('status', '=', 'pending').execute();
}
