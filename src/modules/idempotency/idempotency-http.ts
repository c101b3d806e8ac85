import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { Outcome } from './idempotency.service.js';

/** The request header of routes that store something: a client's name for one request, so a retry is not stored twice. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Any unique string (a UUID) naming this request: a retry with the same key within 24 hours answers the first result instead of storing the file again (`Idempotent-Replayed: true`).',
    }),
  ),
});

/** The answer's body; a replayed one is marked as Stripe's API marks it. */
export function answerOf<T>(reply: FastifyReply, outcome: Outcome<T>): T {
  if (outcome.replayed) reply.header('idempotent-replayed', 'true');
  return outcome.body;
}
