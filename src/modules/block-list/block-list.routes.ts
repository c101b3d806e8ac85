import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { authErrors } from '../../core/schemas.js';
import type { BlockListService } from './block-list.service.js';

const tags = ['Sharing controls'];
const Lists = Type.Object({
  emails: Type.Array(Type.String({ maxLength: 254 }), { maxItems: 5000, description: 'addresses refused on every link of the account' }),
  domains: Type.Array(Type.String({ maxLength: 253 }), { maxItems: 5000, description: 'domains refused, subdomains included' }),
});

/** The account-wide block list, applied to every link beside each link's own `blockedEmails` / `blockedDomains`. */
export const blockListRoutes: FastifyPluginAsyncTypebox<{ blockList: BlockListService }> = async (app, { blockList }) => {
  app.get(
    '',
    { schema: { tags, operationId: 'getBlockList', summary: "The account's block list", response: { 200: Lists, ...authErrors } } },
    async (request) => blockList.get(principalOf(request).accountId),
  );

  app.put(
    '',
    {
      config: { area: 'sharing-policy' },
      schema: {
        tags,
        operationId: 'replaceBlockList',
        summary: "Replace the account's block list; answers it as stored (lower-cased, without duplicates)",
        body: Lists,
        response: { 200: Lists, ...authErrors },
      },
    },
    async (request) => blockList.replace(principalOf(request), request.body),
  );
};
