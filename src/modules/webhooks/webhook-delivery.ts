import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { unseal } from '../../infra/crypto/sealed.js';
import { RefusedDestinationError, type SafeHttpClient } from '../../infra/http/safe-fetch.js';
import { failedAttemptRecord, PermanentJobError, type JobFailure, type JobKind, type JobLog, type RunningJob } from '../../infra/jobs/index.js';
import { retryDelayMs } from '../events/event-dispatcher.js';
import { signatureOf } from './webhook-messages.js';
import { findDelivery, findWebhookTarget, markDeliveryDone, noteResponseStatus, recordDeliveryFailure } from './webhooks.repo.js';
import { webhookSecretContext, webhookUrlContext, type WebhookDeliveryJob } from './webhooks.service.js';

// 4xx means the endpoint refuses the message; only timeouts and throttling are worth retrying.
const isPermanentStatus = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * The `webhook.deliver` job kind: signs a delivery's stored body as Standard Webhooks says
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`) and posts it through the address
 * policy. The runner holds retries with backoff, leases and restarts.
 */
export function createWebhookDelivery(deps: {
  db: Db;
  clock: Clock;
  log: JobLog;
  masterKey: Buffer;
  http: SafeHttpClient;
  retryBaseMs: number;
  maxAttempts: number;
}): JobKind<WebhookDeliveryJob> {
  const { db, clock, log, masterKey, http } = deps;

  async function send({ deliveryId }: WebhookDeliveryJob, job: RunningJob): Promise<void> {
    const delivery = await findDelivery(db, deliveryId);
    const webhook = delivery && (await findWebhookTarget(db, delivery.webhook_id));
    if (!delivery || !webhook) throw new PermanentJobError('the webhook or its delivery is gone');
    // Delivered or given up already: a job that ran twice.
    if (delivery.status !== 'pending') return;
    if (webhook.active !== 1 && delivery.event_type !== 'webhook.test') throw new PermanentJobError('the webhook is inactive');
    const url = unseal(masterKey, webhook.url_sealed, webhookUrlContext(webhook.account_id));
    const secret = unseal(masterKey, webhook.secret_sealed, webhookSecretContext(webhook.account_id));
    const timestamp = Math.floor(clock() / 1000);
    let response;
    try {
      response = await http.post(url, delivery.body, {
        'webhook-id': delivery.message_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureOf(secret, delivery.message_id, timestamp, delivery.body),
      });
    } catch (error) {
      if (error instanceof RefusedDestinationError) throw new PermanentJobError(error.message);
      throw error;
    }
    await noteResponseStatus(db, deliveryId, response.status);
    if (response.status >= 200 && response.status < 300) {
      await markDeliveryDone(db, deliveryId, {
        status: 'delivered',
        response_status: response.status,
        last_error: null,
        attempts: job.attempt,
        delivered_at: clock(),
      });
      return;
    }
    // The URL may carry the receiver's token: the reason names only the status and the answer.
    const reason = `the endpoint answered ${response.status}: ${response.body.slice(0, 200)}`;
    throw isPermanentStatus(response.status) ? new PermanentJobError(reason) : new Error(reason);
  }

  async function recordFailure(trx: Executor, { deliveryId }: WebhookDeliveryJob, failure: JobFailure): Promise<void> {
    const context = { deliveryId, attempt: failure.attempt, error: failure.message };
    if (failure.retry) log.warn({ ...context, retryInMs: failure.retry.inMs }, 'webhook delivery failed, will retry');
    else log.warn(context, 'webhook delivery failed for good');
    await recordDeliveryFailure(trx, deliveryId, failedAttemptRecord(failure));
  }

  return {
    run: send,
    onFailure: recordFailure,
    maxAttempts: deps.maxAttempts,
    backoffMs: (attempt) => retryDelayMs(deps.retryBaseMs, attempt),
    concurrency: 4,
    leaseMs: 60_000,
  };
}
