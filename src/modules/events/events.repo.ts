import { type ExpressionBuilder, PostgresAdapter, type Updateable } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { Database, EventDeliveriesTable } from '../../db/types.js';
import type { EventPayload, EventType, NewEvent } from './event-types.js';

/**
 * Inserts the event and, in the same statement's transaction, one pending delivery per
 * enabled integration of the account: an integration added later does not get old events.
 */
export async function insertEvent(db: Executor, event: NewEvent, now: number): Promise<number> {
  const { id } = await db
    .insertInto('events')
    .values({ account_id: event.accountId, type: event.type, link_id: event.linkId, payload: JSON.stringify(event.payload), created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('event_deliveries')
    .columns(['event_id', 'integration_id', 'status', 'next_attempt_at'])
    .expression((eb) =>
      eb
        .selectFrom('integrations')
        // Typed casts: PostgreSQL would take bare parameters in a select list for text.
        .select((inner) => [
          inner.cast<number>(inner.val(id), 'integer').as('event_id'),
          'id',
          inner.cast<'pending'>(inner.val('pending'), 'text').as('status'),
          inner.cast<number>(inner.val(now), 'bigint').as('next_attempt_at'),
        ])
        .where('account_id', '=', event.accountId)
        .where('enabled', '=', 1),
    )
    .execute();
  return id;
}

/** A delivery a dispatcher may take: pending, due, and not leased by a live dispatcher. */
function claimable(eb: ExpressionBuilder<Database, 'event_deliveries'>, now: number) {
  return eb.and([
    eb('status', '=', 'pending'),
    eb('next_attempt_at', '<=', now),
    eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]),
  ]);
}

/**
 * Leases up to `limit` due deliveries to this dispatcher and counts the attempt, in one
 * statement. As in the mail outbox: the outer WHERE re-checks the conditions so a PostgreSQL
 * replica that lost the race for a row gets nothing, and SKIP LOCKED sends it to other rows.
 */
export async function claimDueDeliveries(db: Executor, now: number, leaseMs: number, limit: number) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db
    .updateTable('event_deliveries')
    .set((eb) => ({ locked_until: now + leaseMs, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('event_deliveries')
        .select('id')
        .where((inner) => claimable(inner, now))
        .orderBy('id')
        .limit(limit)
        .$if(postgres, (query) => query.forUpdate().skipLocked()),
    )
    .where((eb) => claimable(eb, now))
    .returning(['id', 'attempts', 'locked_until'])
    .execute();
}

export type DeliveryClaim = Awaited<ReturnType<typeof claimDueDeliveries>>[number];

/** The claimed deliveries with their event and integration. */
export async function loadDeliveries(db: Executor, ids: readonly number[]) {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('event_deliveries as delivery')
    .innerJoin('events as event', 'event.id', 'delivery.event_id')
    .innerJoin('integrations as integration', 'integration.id', 'delivery.integration_id')
    .select([
      'delivery.id as deliveryId',
      'event.id as eventId',
      'event.account_id as accountId',
      'event.type as type',
      'event.link_id as linkId',
      'event.payload as payload',
      'event.created_at as createdAt',
      'integration.id as integrationId',
      'integration.type as integrationType',
      'integration.channel as channel',
      'integration.webhook_url_sealed as webhookUrlSealed',
      'integration.enabled as enabled',
    ])
    .where('delivery.id', 'in', ids)
    .execute();
  return rows.map((row) => ({
    deliveryId: row.deliveryId,
    event: {
      id: row.eventId,
      accountId: row.accountId,
      type: row.type as EventType,
      linkId: row.linkId,
      payload: JSON.parse(row.payload) as EventPayload,
      createdAt: Number(row.createdAt),
    },
    integration: {
      id: row.integrationId,
      accountId: row.accountId,
      type: row.integrationType,
      channel: row.channel,
      webhookUrlSealed: row.webhookUrlSealed,
      enabled: row.enabled === 1,
    },
  }));
}

/** Recorded even if the lease ran out meanwhile: the message did arrive. */
export async function markDelivered(db: Executor, id: number, now: number): Promise<void> {
  await db.updateTable('event_deliveries').set({ status: 'delivered', delivered_at: now, locked_until: null, last_error: null }).where('id', '=', id).execute();
}

/** A failure counts only while this dispatcher still holds the lease it claimed with. */
async function updateHeldClaim(db: Executor, claim: DeliveryClaim, patch: Updateable<EventDeliveriesTable>): Promise<void> {
  await db
    .updateTable('event_deliveries')
    .set(patch)
    .where('id', '=', claim.id)
    .where('status', '=', 'pending')
    .where('locked_until', '=', claim.locked_until)
    .execute();
}

export const scheduleRetry = (db: Executor, claim: DeliveryClaim, nextAttemptAt: number, error: string) =>
  updateHeldClaim(db, claim, { next_attempt_at: nextAttemptAt, locked_until: null, last_error: error });

export const markFailed = (db: Executor, claim: DeliveryClaim, error: string) =>
  updateHeldClaim(db, claim, { status: 'failed', locked_until: null, last_error: error });
