import { unseal } from '../../infra/crypto/sealed.js';
import { RefusedDestinationError, type SafeHttpClient } from '../../infra/http/safe-fetch.js';
import { PermanentDeliveryError, type DeliverFn } from '../events/event-dispatcher.js';
import { slackMessage, teamsMessage } from './chat-messages.js';
import { webhookUrlContext } from './webhook-url.js';

// 4xx means the webhook itself is wrong or revoked; only timeouts and throttling are worth retrying.
const isPermanentStatus = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/** Posts an event to its integration's webhook, formatted for that chat service. */
export function createChatDelivery(deps: {
  masterKey: Buffer;
  http: SafeHttpClient;
  viewerUrlFor: (accountId: number, linkId: string) => Promise<string>;
}): DeliverFn {
  const { masterKey, http, viewerUrlFor } = deps;
  return async ({ event, integration }) => {
    const webhookUrl = unseal(masterKey, integration.webhookUrlSealed, webhookUrlContext(integration.accountId));
    const target = event.linkId === null ? null : await viewerUrlFor(event.accountId, event.linkId);
    const message = integration.type === 'slack' ? slackMessage(event, target, integration.channel) : teamsMessage(event, target);
    let response;
    try {
      response = await http.postJson(webhookUrl, message);
    } catch (error) {
      if (error instanceof RefusedDestinationError) throw new PermanentDeliveryError(error.message);
      throw error;
    }
    if (response.status >= 200 && response.status < 300) return;
    // The URL (a secret) is never part of the reason: only the status and the service's answer.
    const reason = `${integration.type} answered ${response.status}: ${response.body.slice(0, 200)}`;
    throw isPermanentStatus(response.status) ? new PermanentDeliveryError(reason) : new Error(reason);
  };
}
