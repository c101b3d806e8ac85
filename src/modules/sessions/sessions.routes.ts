import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, authErrors } from '../../core/schemas.js';
import type { SessionsService } from './sessions.service.js';

const tags = ['Sign-in'];
const Session = Type.Object({
  id: Type.String(),
  accountId: Type.Integer(),
  current: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time', description: 'when the person signed in: kept when the session moves to another account' }),
  lastSeenAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'the earlier of the idle and the absolute end' }),
  ip: Type.String(),
  userAgent: Type.String(),
});

export const sessionsRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionsService }> = async (app, { sessions }) => {
  const sessionOnly = { sessionOnly: true, beforeTwoFactor: true } as const;

  app.get(
    '',
    {
      config: sessionOnly,
      schema: {
        tags,
        operationId: 'listSessions',
        summary: "The signed-in person's live sessions",
        response: { 200: Type.Object({ sessions: Type.Array(Session) }), ...authErrors },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return { sessions: await sessions.list(principal.actor.id, principal.session?.publicId) };
    },
  );

  app.delete(
    '/:id',
    {
      config: sessionOnly,
      schema: {
        tags,
        operationId: 'revokeSession',
        summary: 'End one of the signed-in person’s sessions',
        params: Type.Object({ id: Type.String({ pattern: '^[0-9A-Za-z]{16}$' }) }),
        response: { 204: Type.Null(), ...authErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      await sessions.revoke(principalOf(request).actor.id, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
