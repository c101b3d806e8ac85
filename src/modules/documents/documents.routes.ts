import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, StringId, authErrors } from '../../core/schemas.js';
import type { PagesService } from './pages.service.js';

/** A page's thumbnail for the dashboard and per-page analytics (owners see the clean page). */
export const documentsRoutes: FastifyPluginAsyncTypebox<{ pages: Pick<PagesService, 'thumbnailForOwner'> }> = async (app, { pages }) => {
  app.get(
    '/links/:id/pages/:page/thumbnail',
    {
      schema: {
        tags: ['Links'],
        operationId: 'getPageThumbnail',
        summary: "A page of a PDF or Office file as a 320 px WebP thumbnail, once rendered (see the link's `document`)",
        params: Type.Object({ id: StringId, page: Type.Integer({ minimum: 1, maximum: 100_000 }) }),
        response: { 200: Type.Unknown({ description: 'image/webp' }), ...authErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const image = await pages.thumbnailForOwner(principalOf(request).accountId, request.params.id, request.params.page);
      return reply.type(image.mime).header('cache-control', 'private, max-age=300').send(image.bytes);
    },
  );
};
