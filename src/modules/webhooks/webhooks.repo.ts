import type { Executor } from '../../db/executor.js';
import type { WebhookDeliveriesTable } from '../../db/types.js';
import type { FailedAttemptRecord } from '../../infra/jobs/index.js';

const VISIBLE = ['id', 'url_origin', 'events', 'active', 'created_at', 'updated_at'] as const;

export function listWebhooks(db: Executor, accountId: number) {
  return db.selectFrom('webhooks').select(VISIBLE).where('account_id', '=', accountId).orderBy('id').execute();
}

export function findWebhook(db: Executor, accountId: number, id: number) {
  return db.selectFrom('webhooks').select(VISIBLE).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** Everything a delivery needs, sealed parts included; by id alone (the job knows no account). */
export function findWebhookTarget(db: Executor, id: number) {
  return db.selectFrom('webhooks').select(['id', 'account_id', 'url_sealed', 'secret_sealed', 'active']).where('id', '=', id).executeTakeFirst();
}

export function countWebhooks(db: Executor, accountId: number) {
  return db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
}

export async function insertWebhook(
  db: Executor,
  webhook: { accountId: number; urlSealed: string; urlOrigin: string; events: string; active: boolean; secretSealed: string; now: number },
): Promise<number> {
  const row = await db
    .insertInto('webhooks')
    .values({
      account_id: webhook.accountId,
      url_sealed: webhook.urlSealed,
      url_origin: webhook.urlOrigin,
      events: webhook.events,
      active: Number(webhook.active),
      secret_sealed: webhook.secretSealed,
      created_at: webhook.now,
      updated_at: webhook.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateWebhook(
  db: Executor,
  accountId: number,
  id: number,
  patch: { url_sealed?: string; url_origin?: string; events?: string; active?: number; updated_at: number },
): Promise<boolean> {
  const result = await db.updateTable('webhooks').set(patch).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteWebhook(db: Executor, accountId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The account's active webhooks with the event types they take, read in the event's transaction. */
export function listActiveWebhooks(db: Executor, accountId: number) {
  return db.selectFrom('webhooks').select(['id', 'events']).where('account_id', '=', accountId).where('active', '=', 1).execute();
}

export async function insertDeliveries(
  db: Executor,
  deliveries: ReadonlyArray<{ webhookId: number; messageId: string; eventType: string; body: string }>,
  now: number,
): Promise<number[]> {
  if (deliveries.length === 0) return [];
  const rows = await db
    .insertInto('webhook_deliveries')
    .values(
      deliveries.map((delivery) => ({
        webhook_id: delivery.webhookId,
        message_id: delivery.messageId,
        event_type: delivery.eventType,
        body: delivery.body,
        status: 'pending' as const,
        created_at: now,
      })),
    )
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

export function findDelivery(db: Executor, id: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'webhook_id', 'message_id', 'event_type', 'body', 'status'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Deletes up to `limit` deliveries made before `before`, bodies and outcomes; answers how many went. */
export async function deleteDeliveriesBefore(db: Executor, before: number, limit: number): Promise<number> {
  const ids = db.selectFrom('webhook_deliveries').select('id').where('created_at', '<', before).limit(limit);
  const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The webhook's latest deliveries, newest first. */
export function listDeliveries(db: Executor, webhookId: number, limit: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'message_id', 'event_type', 'status', 'attempts', 'response_status', 'last_error', 'created_at', 'delivered_at'])
    .where('webhook_id', '=', webhookId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function markDeliveryDone(
  db: Executor,
  id: number,
  outcome: Pick<WebhookDeliveriesTable, 'status' | 'response_status' | 'last_error'> & { attempts: number; delivered_at: number | null },
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ ...outcome, next_attempt_at: null })
    .where('id', '=', id)
    .execute();
}

/** The receiver's answer to the latest attempt, kept before the attempt is judged. */
export async function noteResponseStatus(db: Executor, id: number, responseStatus: number | null): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ response_status: responseStatus }).where('id', '=', id).execute();
}

/** A failed attempt, as the job runner decided it: retried at `next_attempt_at`, or `failed` for good. */
export async function recordDeliveryFailure(db: Executor, id: number, failure: FailedAttemptRecord): Promise<void> {
  await db.updateTable('webhook_deliveries').set(failure).where('id', '=', id).where('status', '=', 'pending').execute();
}
