import { unseal } from '../../infra/crypto/sealed.js';
import { RefusedDestinationError, type SafeHttpClient } from '../../infra/http/safe-fetch.js';
import { PermanentDeliveryError, type DeliverFn } from '../events/event-dispatcher.js';
import { slackMessage, teamsMessage, testMessage } from './chat-messages.js';
import type { ChatTarget } from './integrations.service.js';
import { webhookUrlContext } from './webhook-url.js';

// 4xx means the webhook itself is wrong or revoked; only timeouts and throttling are worth retrying.
const isPermanentStatus = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/** Posts `message` to the integration's webhook; a refusal throws with the service's answer (never the URL, a secret). */
async function postToChat(deps: { masterKey: Buffer; http: SafeHttpClient }, integration: ChatTarget, message: unknown): Promise<void> {
  const webhookUrl = unseal(deps.masterKey, integration.webhookUrlSealed, webhookUrlContext(integration.accountId));
  let response;
  try {
    response = await deps.http.postJson(webhookUrl, message);
  } catch (error) {
    if (error instanceof RefusedDestinationError) throw new PermanentDeliveryError(error.message);
    throw error;
  }
  if (response.status >= 200 && response.status < 300) return;
  const reason = `${integration.type} answered ${response.status}: ${response.body.slice(0, 200)}`;
  throw isPermanentStatus(response.status) ? new PermanentDeliveryError(reason) : new Error(reason);
}

/** Posts an event to its integration's webhook, formatted for that chat service. */
export function createChatDelivery(deps: {
  masterKey: Buffer;
  http: SafeHttpClient;
  viewerUrlFor: (accountId: number, linkId: string) => Promise<string>;
}): DeliverFn {
  const { viewerUrlFor } = deps;
  return async ({ event, integration }) => {
    const target = event.linkId === null ? null : await viewerUrlFor(event.accountId, event.linkId);
    const message = integration.type === 'slack' ? slackMessage(event, target, integration.channel) : teamsMessage(event, target);
    await postToChat(deps, integration, message);
  };
}

/** Posts the test message to an integration at once (the owner waits for the service's answer). */
export function createChatTest(deps: { masterKey: Buffer; http: SafeHttpClient }) {
  return (integration: ChatTarget) => postToChat(deps, integration, testMessage(integration.type, integration.channel));
}
