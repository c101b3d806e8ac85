import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { notFound, unprocessable } from '../../core/errors.js';
import { isoTime } from '../../core/timestamps.js';
import { seal } from '../../infra/crypto/sealed.js';
import { fairKeyOfAccount, type JobQueue } from '../../infra/jobs/index.js';
import type { AccountRecords } from '../accounts/account-records.js';
import { changedFields, type AuditLog, type ChangeSource } from '../audit/audit.service.js';
import type { NewEvent } from '../events/event-types.js';
import { newMessageId, newSigningSecret, publicEventType, webhookBody, type WebhookEventType } from './webhook-messages.js';
import {
  countWebhooks,
  deleteDeliveriesBefore,
  deleteWebhook,
  findWebhook,
  insertDeliveries,
  insertWebhook,
  listActiveWebhooks,
  listDeliveries,
  listWebhooks,
  updateWebhook,
} from './webhooks.repo.js';

/** Each event fans out to every webhook of the account that takes it: keep the fan-out small. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
export const WEBHOOK_DELIVERY_JOB = 'webhook.deliver';
export interface WebhookDeliveryJob {
  deliveryId: number;
}
const LISTED_DELIVERIES = 50;

export const webhookUrlContext = (accountId: number) => `webhook.url:${accountId}`;
export const webhookSecretContext = (accountId: number) => `webhook.secret:${accountId}`;

/** The URL as stored, or a 422: https (http too with ALLOW_PRIVATE_WEBHOOKS), no credentials; addresses are checked when sending. */
function checkedUrl(raw: string, allowPrivate: boolean): URL {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!url || !schemes.includes(url.protocol) || url.username !== '' || url.password !== '') {
    throw unprocessable('url must be an https URL without credentials');
  }
  return url;
}

const parseEvents = (json: string) => JSON.parse(json) as WebhookEventType[];

function view(row: { id: number; url_origin: string; events: string; active: number; created_at: number; updated_at: number }) {
  return {
    id: row.id,
    url: row.url_origin,
    events: parseEvents(row.events),
    active: row.active === 1,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

/** Signed webhooks (Standard Webhooks): the account's endpoints, and the deliveries each event makes. */
export function createWebhooksService(deps: {
  db: Db;
  clock: Clock;
  masterKey: Buffer;
  allowPrivateWebhooks: boolean;
  jobs: Pick<JobQueue, 'enqueueMany'>;
  accounts: Pick<AccountRecords, 'lock'>;
  audit: Pick<AuditLog, 'record'>;
}) {
  const { db, clock, masterKey, allowPrivateWebhooks, jobs, accounts, audit } = deps;

  async function own(accountId: number, id: number) {
    const row = await findWebhook(db, accountId, id);
    if (!row) throw notFound(`Webhook ${id}`);
    return row;
  }

  /** Queues one delivery per webhook taking `type`, with the body to sign, on `trx`. */
  async function enqueue(trx: Executor, accountId: number, webhookIds: readonly number[], type: string, body: string): Promise<number[]> {
    const deliveries = webhookIds.map((webhookId) => ({ webhookId, messageId: newMessageId(), eventType: type, body }));
    const ids = await insertDeliveries(trx, deliveries, clock());
    await jobs.enqueueMany(
      WEBHOOK_DELIVERY_JOB,
      ids.map((deliveryId): WebhookDeliveryJob => ({ deliveryId })),
      { executor: trx, fairKey: fairKeyOfAccount(accountId) },
    );
    return ids;
  }

  return {
    list: async (accountId: number) => (await listWebhooks(db, accountId)).map(view),

    /** For the retention sweep. */
    deleteDeliveriesBefore: (before: number, limit: number) => deleteDeliveriesBefore(db, before, limit),

    get: async (accountId: number, id: number) => view(await own(accountId, id)),

    /** A new webhook; the answer carries its signing secret, shown this once. */
    async create(source: ChangeSource, input: { url: string; events: WebhookEventType[]; active?: boolean }) {
      const { accountId } = source;
      const url = checkedUrl(input.url, allowPrivateWebhooks);
      const secret = newSigningSecret();
      const id = await db.transaction().execute(async (trx) => {
        await accounts.lock(trx, accountId);
        const { count } = await countWebhooks(trx, accountId);
        if (Number(count) >= MAX_WEBHOOKS_PER_ACCOUNT) throw unprocessable(`An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks`);
        const created = await insertWebhook(trx, {
          accountId,
          urlSealed: seal(masterKey, url.href, webhookUrlContext(accountId)),
          urlOrigin: url.origin,
          events: JSON.stringify([...new Set(input.events)]),
          active: input.active ?? true,
          secretSealed: seal(masterKey, secret, webhookSecretContext(accountId)),
          now: clock(),
        });
        await audit.record(
          source,
          { action: 'webhook.created', target: { type: 'webhook', id: created }, details: { url: url.origin, events: input.events } },
          trx,
        );
        return created;
      });
      return { ...view(await own(accountId, id)), secret };
    },

    async update(source: ChangeSource, id: number, input: { url?: string; events?: WebhookEventType[]; active?: boolean }) {
      const { accountId } = source;
      await own(accountId, id);
      const url = input.url === undefined ? undefined : checkedUrl(input.url, allowPrivateWebhooks);
      await db.transaction().execute(async (trx) => {
        await updateWebhook(trx, accountId, id, {
          ...(url && { url_sealed: seal(masterKey, url.href, webhookUrlContext(accountId)), url_origin: url.origin }),
          ...(input.events && { events: JSON.stringify([...new Set(input.events)]) }),
          ...(input.active !== undefined && { active: Number(input.active) }),
          updated_at: clock(),
        });
        const changes = {
          ...(url && { url: url.origin }),
          ...(input.events && { events: input.events }),
          ...(input.active !== undefined && { active: input.active }),
        };
        await audit.record(source, { action: 'webhook.updated', target: { type: 'webhook', id }, details: changedFields(changes) }, trx);
      });
      return view(await own(accountId, id));
    },

    async remove(source: ChangeSource, id: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (!(await deleteWebhook(trx, source.accountId, id))) throw notFound(`Webhook ${id}`);
        await audit.record(source, { action: 'webhook.deleted', target: { type: 'webhook', id } }, trx);
      });
    },

    async deliveries(accountId: number, id: number) {
      await own(accountId, id);
      return (await listDeliveries(db, id, LISTED_DELIVERIES)).map((row) => ({
        id: row.id,
        messageId: row.message_id,
        eventType: row.event_type,
        status: row.status,
        attempts: row.attempts,
        responseStatus: row.response_status,
        error: row.last_error,
        createdAt: isoTime(row.created_at),
        deliveredAt: row.delivered_at === null ? null : isoTime(row.delivered_at),
      }));
    },

    /** Queues a `webhook.test` message to this webhook (active or not); answers the delivery's id. */
    async sendTest(accountId: number, id: number): Promise<number> {
      await own(accountId, id);
      const body = webhookBody('webhook.test', { type: 'link.viewed', linkId: null, payload: { linkName: 'Test message' }, createdAt: clock() });
      const [deliveryId] = await db.transaction().execute((trx) => enqueue(trx, accountId, [id], 'webhook.test', body));
      return deliveryId!;
    },

    /** The events module's subscriber: each active webhook taking the event's public type gets a delivery, in the event's transaction. */
    async subscriber(trx: Executor, event: NewEvent, at: number): Promise<void> {
      const type = publicEventType(event.type);
      if (!type) return;
      const takers = (await listActiveWebhooks(trx, event.accountId)).filter((webhook) => parseEvents(webhook.events).includes(type));
      if (takers.length === 0) return;
      const body = webhookBody(type, { ...event, createdAt: at });
      await enqueue(
        trx,
        event.accountId,
        takers.map((webhook) => webhook.id),
        type,
        body,
      );
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
