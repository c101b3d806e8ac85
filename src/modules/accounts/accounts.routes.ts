import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, authErrors } from '../../core/schemas.js';
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
export const accountsRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountsService }> = async (app, { accounts }) => {
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
};
