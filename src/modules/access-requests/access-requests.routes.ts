import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, StringId, authErrors } from '../../core/schemas.js';
import type { AccessRequestsService, Decision } from './access-requests.service.js';

const tags = ['Access requests'];
const errors = { ...authErrors, 404: ErrorBody, 422: ErrorBody } as const;
const DecisionParams = Type.Object({ id: StringId, requestId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const EmailVerified = Type.Union([Type.Boolean(), Type.Null()], {
  description: 'true when a one-time code proved the address, false when the visitor only typed it; null for requests made before this was recorded',
});
const DecisionBody = Type.Object({ status: Type.Union([Type.Literal('approved'), Type.Literal('denied')]) });

export const accessRequestsRoutes: FastifyPluginAsyncTypebox<{ accessRequests: AccessRequestsService }> = async (app, { accessRequests }) => {
  app.get(
    '/pending-count',
    {
      schema: {
        tags,
        operationId: 'countPendingAccessRequests',
        summary: "Pending access requests over all the account's links",
        response: { 200: Type.Object({ count: Type.Integer() }), ...authErrors },
      },
    },
    async (request) => ({ count: await accessRequests.pendingCount(principalOf(request).accountId) }),
  );

  app.get(
    '/pending-requests',
    {
      schema: {
        tags,
        operationId: 'listPendingAccessRequests',
        summary: "Access requests waiting for an answer over all the account's links, newest first",
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }) }),
        response: {
          200: Type.Object({
            requests: Type.Array(
              Type.Object({
                id: Type.Integer(),
                linkId: Type.String(),
                linkName: Type.String(),
                email: Type.String(),
                emailVerified: EmailVerified,
                visitorIp: Type.String(),
                created_at: Type.String({ format: 'date-time' }),
              }),
            ),
          }),
          ...authErrors,
        },
      },
    },
    async (request) => ({ requests: await accessRequests.pending(principalOf(request).accountId, request.query.limit) }),
  );

  app.get(
    '/:id/requests',
    {
      schema: {
        tags,
        operationId: 'listAccessRequests',
        summary: 'Access requests of a link that requires approval, newest first',
        params: Type.Object({ id: StringId }),
        response: {
          200: Type.Object({
            requests: Type.Array(
              Type.Object({
                id: Type.Integer(),
                visitorIp: Type.String(),
                status: Type.String({ enum: ['pending', 'approved', 'denied'] }),
                email: Type.String(),
                emailVerified: EmailVerified,
                created_at: Type.String({ format: 'date-time' }),
              }),
            ),
          }),
          ...errors,
        },
      },
    },
    async (request) => ({ requests: await accessRequests.list(principalOf(request).accountId, request.params.id) }),
  );

  app.route({
    method: 'PATCH',
    url: '/:id/requests/:requestId',
    schema: {
      tags,
      operationId: 'decideAccessRequest',
      summary: 'Approve or deny an access request',
      params: DecisionParams,
      body: DecisionBody,
      response: { 200: Type.Object({ ok: Type.Boolean(), status: Type.String() }), ...errors },
    },
    handler: async (request: FastifyRequest<{ Params: { id: string; requestId: number }; Body: { status: Decision } }>) => {
      const { id, requestId } = request.params;
      const status = await accessRequests.decide(principalOf(request), id, requestId, request.body.status);
      return { ok: true, status };
    },
  });
};
