import { createHmac, randomBytes } from 'node:crypto';
import { isoTime } from '../../core/timestamps.js';
import { randomBase62 } from '../../infra/crypto/tokens.js';
import { maskIp, type EventType, type RecordedEvent } from '../events/event-types.js';

/** What a webhook may subscribe to: the public names of the events this service records. */
export const WEBHOOK_EVENT_TYPES = [
  'link.viewed',
  'link.downloaded',
  'access_request.created',
  'access_request.decided',
  'agreement.accepted',
  'payment.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const PUBLIC_NAMES: Partial<Record<EventType, WebhookEventType>> = {
  'link.viewed': 'link.viewed',
  'link.downloaded': 'link.downloaded',
  'access.requested': 'access_request.created',
  'access.approved': 'access_request.decided',
  'access.denied': 'access_request.decided',
  'agreement.accepted': 'agreement.accepted',
  'purchase.completed': 'payment.completed',
};

export const publicEventType = (type: EventType): WebhookEventType | undefined => PUBLIC_NAMES[type];

/** The JSON body a webhook receives for `event`: the Standard Webhooks shape, `{type, timestamp, data}`. */
export function webhookBody(type: WebhookEventType | 'webhook.test', event: Pick<RecordedEvent, 'type' | 'linkId' | 'payload' | 'createdAt'>) {
  const { linkName, email, emailVerified, ip, amount, currency } = event.payload;
  return JSON.stringify({
    type,
    timestamp: isoTime(event.createdAt),
    data: {
      linkId: event.linkId,
      linkName,
      visitor: { email: email ?? null, emailVerified: email ? (emailVerified ?? null) : null, ip: ip ? maskIp(ip) : null },
      ...(type === 'access_request.decided' && { decision: event.type === 'access.approved' ? 'approved' : 'denied' }),
      ...(amount !== undefined && { amount, currency }),
    },
  });
}

/** A message id (`webhook-id`): the same on every retry, so receivers can drop duplicates. */
export const newMessageId = () => `msg_${randomBase62(24)}`;

/** A signing secret as Standard Webhooks writes it: `whsec_` and 24 random bytes in base64. */
export const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The `webhook-signature` header of Standard Webhooks: HMAC-SHA256 over
 * `{id}.{timestamp}.{body}` keyed by the secret's base64 part, base64, versioned `v1`.
 */
export function signatureOf(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}
