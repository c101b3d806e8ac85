import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, OkBody, StringId, authErrors } from '../../core/schemas.js';
import { answerOf, IdempotencyHeaders } from '../idempotency/idempotency-http.js';
import { LinkMetadata } from '../links/links.routes.js';
import { PORTAL_SLUG_PATTERN, type PortalsService } from './portals.service.js';

const tags = ['Client portals'];
const errors = { ...authErrors, 404: ErrorBody, 422: ErrorBody } as const;
const PortalParams = Type.Object({ id: StringId });

const PortalName = Type.String({ minLength: 1, maxLength: 200 });
const PortalSlug = Type.String({
  pattern: PORTAL_SLUG_PATTERN,
  description: 'lower-case letters, digits and hyphens, 3-63 characters; unique across the service',
});
const AllowedEmails = Type.Array(Type.String({ maxLength: 254 }), { maxItems: 1000, description: 'the addresses that may sign in' });

const PortalSummary = Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String(), url: Type.String() });

export const portalsRoutes: FastifyPluginAsyncTypebox<{ portals: PortalsService }> = async (app, { portals }) => {
  app.get(
    '',
    {
      schema: {
        tags,
        operationId: 'listClientPortals',
        summary: "List the account's client portals",
        response: { 200: Type.Object({ portals: Type.Array(PortalSummary) }), ...authErrors },
      },
    },
    async (request) => ({ portals: await portals.list(principalOf(request).accountId) }),
  );

  app.post(
    '',
    {
      schema: {
        tags,
        operationId: 'createClientPortal',
        summary: 'Create a client portal at {PUBLIC_URL}/p/{slug}',
        headers: IdempotencyHeaders,
        body: Type.Object({ name: PortalName, slug: PortalSlug, allowedEmails: Type.Optional(AllowedEmails) }),
        response: { 200: Type.Object({ ok: Type.Boolean(), id: Type.String(), url: Type.String() }), ...errors },
      },
    },
    async (request, reply) => answerOf(reply, await portals.create(principalOf(request).accountId, request.body, request.headers['idempotency-key'])),
  );

  app.get(
    '/:id',
    {
      schema: {
        tags,
        operationId: 'getClientPortal',
        summary: 'A portal with its allowed addresses and its links',
        params: PortalParams,
        response: {
          200: Type.Object({
            portal: Type.Object({ ...PortalSummary.properties, allowedEmails: Type.Array(Type.String()), links: Type.Array(LinkMetadata) }),
          }),
          ...errors,
        },
      },
    },
    async (request) => ({ portal: await portals.get(principalOf(request).accountId, request.params.id) }),
  );

  app.route({
    method: 'PATCH',
    url: '/:id',
    schema: {
      tags,
      operationId: 'updateClientPortal',
      summary: 'Rename a portal, move it to another slug or change its allowed addresses',
      params: PortalParams,
      body: Type.Object({ name: Type.Optional(PortalName), slug: Type.Optional(PortalSlug), allowedEmails: Type.Optional(AllowedEmails) }),
      response: { 200: OkBody, ...errors },
    },
    handler: async (request) => {
      await portals.update(principalOf(request).accountId, request.params.id, request.body);
      return { ok: true };
    },
  });

  app.delete(
    '/:id',
    {
      schema: {
        tags,
        operationId: 'deleteClientPortal',
        summary: 'Delete a portal (its links stay)',
        params: PortalParams,
        response: { 200: OkBody, ...errors },
      },
    },
    async (request) => {
      await portals.remove(principalOf(request).accountId, request.params.id);
      return { ok: true };
    },
  );

  app.post(
    '/:id/links',
    {
      schema: {
        tags,
        operationId: 'addClientPortalLinks',
        summary: 'Assign links of the account to the portal (assigning one twice changes nothing)',
        params: PortalParams,
        body: Type.Object({ linkIds: Type.Array(StringId, { minItems: 1, maxItems: 500 }) }),
        response: { 200: OkBody, ...errors },
      },
    },
    async (request) => {
      await portals.assignLinks(principalOf(request).accountId, request.params.id, request.body.linkIds);
      return { ok: true };
    },
  );

  app.delete(
    '/:id/links/:linkId',
    {
      schema: {
        tags,
        operationId: 'removeClientPortalLink',
        summary: 'Take a link out of the portal (the link itself stays)',
        params: Type.Object({ id: StringId, linkId: StringId }),
        response: { 200: OkBody, ...errors },
      },
    },
    async (request) => {
      await portals.unassignLink(principalOf(request).accountId, request.params.id, request.params.linkId);
      return { ok: true };
    },
  );
};
