import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, authErrors } from '../../core/schemas.js';
import { clientOf, SelfProofFields } from '../auth/auth.routes.js';
import type { AccountClosure } from './account-closure.service.js';
import type { AccountsService } from './accounts.service.js';

const tags = ['Account'];
const Account = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String({ description: "the account's address: mail about views, requests and sales goes here when no one else is to be told" }),
  plan: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

/** /api/account: the account the caller works in, for its owners. */
export const accountsRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountsService; closure: AccountClosure }> = async (
  app,
  { accounts, closure },
) => {
  const owners = { area: 'account' } as const;

  app.get(
    '/account',
    {
      config: owners,
      schema: { tags, operationId: 'getAccount', summary: 'The account: its name, address and plan', response: { 200: Account, ...authErrors } },
    },
    async (request) => accounts.detail(principalOf(request).accountId),
  );

  app.patch(
    '/account',
    {
      config: owners,
      schema: {
        tags,
        operationId: 'updateAccount',
        summary: 'Rename the account, or change its address; answers as GET /api/account',
        description: '400 for an address mail cannot go to; 409 for one another account has; 422 for a blank name.',
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            email: Type.Optional(Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' })),
          },
          { minProperties: 1 },
        ),
        response: { 200: Account, ...authErrors, 409: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => accounts.update(principalOf(request), request.body),
  );

  app.delete(
    '/account',
    {
      config: { ...owners, sessionOnly: true },
      schema: {
        tags,
        operationId: 'deleteAccount',
        summary: 'Delete the account and everything in it, for good (204)',
        description:
          "Links, rooms, portals, templates, views and their analytics, purchases, members, invitations, keys, webhooks and settings go at once, the stored files right after; every session in the account ends, this one too, and people who belong to no other account lose their sign-in. `accountName` must be the account's name as GET /api/account gives it. Proved with `currentPassword` when the person has a password, and `code` when their two-factor is on: 422 when one is missing or not right (counted like a failed sign-in: 429 after five in 15 minutes).",
        body: Type.Object({ accountName: Type.String({ minLength: 1, maxLength: 254 }), ...SelfProofFields }),
        response: { 204: Type.Null(), ...authErrors, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      await closure.close(principalOf(request), request.body, clientOf(request));
      return reply.code(204).send(null);
    },
  );
};
