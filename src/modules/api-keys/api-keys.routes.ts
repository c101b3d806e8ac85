import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, IntegerIdParams, NullableString, authErrors } from '../../core/schemas.js';
import type { ApiKeysService } from './api-keys.service.js';

const MaskedApiKey = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  key_prefix: Type.String({ description: 'lvk_ + 4 characters + mask' }),
  active: Type.Boolean(),
  total_requests: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: NullableString({ format: 'date-time' }),
  created_by: Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()], {
    description:
      'The person who made the key: it acts with their current role in the account and stops working when they leave it. Null: made at the command line, acts as owner.',
  }),
  acts_as: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member'), Type.Null()], {
    description:
      "The role the key acts with now: its maker's role in the account (owner for a command-line key); null while its maker has none. Only owners switch off or revoke a key that acts as owner.",
  }),
});

const tags = ['API keys'];
const manage = { area: 'api-keys' } as const;

export const apiKeysRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeysService }> = async (app, { apiKeys }) => {
  app.get(
    '',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: "List the account's keys in masked form",
        response: { 200: Type.Object({ api_keys: Type.Array(MaskedApiKey) }), ...authErrors },
      },
    },
    async (request) => ({ api_keys: await apiKeys.list(principalOf(request).accountId) }),
  );

  app.post(
    '',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create a key; the full key appears only in this response',
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({
            api_key: Type.Object({ id: Type.Integer(), name: Type.String(), key: Type.String() }),
            message: Type.String(),
          }),
          ...authErrors,
          422: ErrorBody,
        },
      },
    },
    async (request) => {
      const created = await apiKeys.create(principalOf(request), request.body.name);
      return { api_key: created, message: 'API key created. Copy it now: it will not be shown again.' };
    },
  );

  app.route({
    method: 'PUT',
    url: '/:id/toggle',
    config: manage,
    schema: {
      tags,
      operationId: 'toggleApiKey',
      summary: 'Deactivate an active key or reactivate an inactive one',
      params: IntegerIdParams,
      response: { 200: Type.Object({ active: Type.Boolean(), message: Type.String() }), ...authErrors, 404: ErrorBody },
    },
    handler: async (request) => {
      const active = await apiKeys.toggle(principalOf(request), request.params.id);
      return { active, message: active ? 'API key activated' : 'API key deactivated' };
    },
  });

  app.delete(
    '/:id',
    {
      config: manage,
      schema: {
        tags,
        operationId: 'revokeApiKey',
        summary: 'Revoke a key permanently',
        params: IntegerIdParams,
        response: { 200: Type.Object({ message: Type.String() }), ...authErrors, 404: ErrorBody },
      },
    },
    async (request) => {
      await apiKeys.revoke(principalOf(request), request.params.id);
      return { message: 'API key revoked' };
    },
  );
};
