import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, IntegerIdParams, OkBody, authErrors } from '../../core/schemas.js';
import type { IntegrationsService } from './integrations.service.js';

const tags = ['Integrations'];
/** Chat integrations are a business-plan feature (core/plans.ts: AREA_PLAN). */
const businessOnly = { area: 'integrations' } as const;
const IntegrationTypeSchema = Type.Union([Type.Literal('slack'), Type.Literal('teams')]);

/** The webhook URL is a secret: it is write-only and never part of any response. */
const Integration = Type.Object({
  id: Type.Integer(),
  type: IntegrationTypeSchema,
  enabled: Type.Boolean(),
  channel: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const integrationsRoutes: FastifyPluginAsyncTypebox<{ integrations: IntegrationsService }> = async (app, { integrations }) => {
  app.get(
    '',
    {
      config: businessOnly,
      schema: {
        tags,
        operationId: 'listIntegrations',
        summary: "List the chat integrations that receive the account's events (business plan)",
        response: { 200: Type.Object({ integrations: Type.Array(Integration) }), ...authErrors },
      },
    },
    async (request) => ({ integrations: await integrations.list(principalOf(request).accountId) }),
  );

  app.post(
    '',
    {
      config: businessOnly,
      schema: {
        tags,
        operationId: 'createIntegration',
        summary: "Send the account's events to a Slack or Teams incoming webhook (business plan)",
        description:
          'Slack: https://hooks.slack.com/…; Teams: https://*.webhook.office.com/…, *.logic.azure.com or *.powerplatform.com (Workflows). ' +
          'The URL is stored encrypted and never returned.',
        body: Type.Object({
          type: IntegrationTypeSchema,
          config: Type.Object({
            webhook_url: Type.String({ minLength: 1, maxLength: 2048 }),
            channel: Type.Optional(Type.String({ maxLength: 200 })),
          }),
        }),
        response: { 200: Type.Object({ ok: Type.Boolean(), id: Type.Integer() }), ...authErrors, 422: ErrorBody },
      },
    },
    async (request) => {
      const { type, config } = request.body;
      const id = await integrations.create(principalOf(request), { type, webhookUrl: config.webhook_url, channel: config.channel ?? '' });
      return { ok: true, id };
    },
  );

  app.delete(
    '/:id',
    {
      config: businessOnly,
      schema: {
        tags,
        operationId: 'deleteIntegration',
        summary: 'Remove an integration; its undelivered events are dropped',
        params: IntegerIdParams,
        response: { 200: OkBody, ...authErrors, 404: ErrorBody },
      },
    },
    async (request) => {
      await integrations.remove(principalOf(request), request.params.id);
      return { ok: true };
    },
  );

  app.post(
    '/:id/test',
    {
      config: businessOnly,
      schema: {
        tags,
        operationId: 'testIntegration',
        summary: "Post a test message to the integration now; 422 with the chat service's answer when it refuses",
        params: IntegerIdParams,
        response: { 200: OkBody, ...authErrors, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => {
      await integrations.sendTest(principalOf(request).accountId, request.params.id);
      return { ok: true };
    },
  );
};
