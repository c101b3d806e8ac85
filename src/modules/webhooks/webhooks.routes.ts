import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, IntegerIdParams, OkBody, authErrors } from '../../core/schemas.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-messages.js';
import type { WebhooksService } from './webhooks.service.js';

const tags = ['Webhooks'];
const errors = { ...authErrors, 404: ErrorBody, 422: ErrorBody } as const;
const manage = { area: 'webhooks' } as const;

const EventTypes = Type.Array(Type.Enum([...WEBHOOK_EVENT_TYPES]), { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https; its origin is what lists show' });
const Webhook = Type.Object({
  id: Type.Integer(),
  url: Type.String({ description: 'the origin only: the path may carry a token of the receiver' }),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const Delivery = Type.Object({
  id: Type.Integer(),
  messageId: Type.String({ description: 'the webhook-id header' }),
  eventType: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  responseStatus: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

/** Signed webhooks: any plan the API admits, managed by admins (as chat integrations are). */
export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.get(
    '',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: "The account's webhooks",
        response: { 200: Type.Object({ webhooks: Type.Array(Webhook) }), ...authErrors },
      },
    },
    async (request) => ({ webhooks: await webhooks.list(principalOf(request).accountId) }),
  );

  app.post(
    '',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Add a webhook; the answer carries its signing secret, shown this once',
        body: Type.Object({ url: Url, events: EventTypes, active: Type.Optional(Type.Boolean()) }),
        response: {
          200: Type.Object({ ...Webhook.properties, secret: Type.String({ description: 'whsec_…, for verifying webhook-signature' }) }),
          ...errors,
        },
      },
    },
    async (request) => webhooks.create(principalOf(request), request.body),
  );

  app.get(
    '/:id',
    {
      config: manage,
      schema: { tags, operationId: 'getWebhook', summary: 'One webhook', params: IntegerIdParams, response: { 200: Webhook, ...errors } },
    },
    async (request) => webhooks.get(principalOf(request).accountId, request.params.id),
  );

  app.patch(
    '/:id',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: "Change a webhook's URL, events or active flag",
        params: IntegerIdParams,
        body: Type.Object({ url: Type.Optional(Url), events: Type.Optional(EventTypes), active: Type.Optional(Type.Boolean()) }),
        response: { 200: Webhook, ...errors },
      },
    },
    async (request) => webhooks.update(principalOf(request), request.params.id, request.body),
  );

  app.delete(
    '/:id',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook and its deliveries',
        params: IntegerIdParams,
        response: { 200: OkBody, ...errors },
      },
    },
    async (request) => {
      await webhooks.remove(principalOf(request), request.params.id);
      return { ok: true };
    },
  );

  app.get(
    '/:id/deliveries',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'The latest 50 deliveries, newest first, with their status',
        params: IntegerIdParams,
        response: { 200: Type.Object({ deliveries: Type.Array(Delivery) }), ...errors },
      },
    },
    async (request) => ({ deliveries: await webhooks.deliveries(principalOf(request).accountId, request.params.id) }),
  );

  app.post(
    '/:id/test',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'testWebhook',
        summary: 'Queue a signed webhook.test message to it; follow it in the deliveries',
        params: IntegerIdParams,
        response: { 200: Type.Object({ ok: Type.Boolean(), deliveryId: Type.Integer() }), ...errors },
      },
    },
    async (request) => ({ ok: true, deliveryId: await webhooks.sendTest(principalOf(request).accountId, request.params.id) }),
  );
};
