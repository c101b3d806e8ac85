import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { NullableString, Pagination, authErrors } from '../../core/schemas.js';
import type { AuditLog } from './audit.service.js';

const AuditEntry = Type.Object({
  id: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    type: Type.Union([Type.Literal('user'), Type.Literal('api_key'), Type.Literal('system')]),
    id: Type.Union([Type.Integer(), Type.Null()], { description: 'the user or API key; null for the system' }),
    label: Type.String({ description: "the person's e-mail, the key's name, or what the system was (command line)" }),
  }),
  action: Type.String({ description: 'dotted and past tense: link.created, api_key.revoked, member.role_changed, sign_in.failed…' }),
  target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()]),
  ip: NullableString(),
  details: Type.Object({}, { additionalProperties: true, description: 'what changed: field names and new values, never a secret' }),
});

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: Pick<AuditLog, 'list'> }> = async (app, { audit }) => {
  app.get(
    '/audit-log',
    {
      config: { area: 'audit-log' },
      schema: {
        tags: ['Audit log'],
        operationId: 'listAuditLog',
        summary: 'Who changed what in the account, newest first (owners and admins)',
        querystring: Type.Object({
          page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only entries of this action, e.g. link.deleted' })),
        }),
        response: { 200: Type.Object({ entries: Type.Array(AuditEntry), pagination: Pagination }), ...authErrors },
      },
    },
    async (request) => audit.list(principalOf(request).accountId, request.query),
  );
};
