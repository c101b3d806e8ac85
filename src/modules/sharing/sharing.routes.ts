import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, OkBody, StringId, authErrors } from '../../core/schemas.js';
import type { SharingService } from './sharing.service.js';

export const sharingRoutes: FastifyPluginAsyncTypebox<{ sharing: SharingService }> = async (app, { sharing }) => {
  app.post(
    '/:id/share',
    {
      schema: {
        tags: ['Links'],
        operationId: 'shareLink',
        summary: 'E-mail the viewer link to 1-50 recipients, with an optional note',
        params: Type.Object({ id: StringId }),
        body: Type.Object({
          emails: Type.Array(Type.String({ maxLength: 254 }), { minItems: 1, maxItems: 50 }),
          message: Type.Optional(Type.String({ maxLength: 2000 })),
        }),
        response: { 200: OkBody, ...authErrors, 404: ErrorBody, 410: ErrorBody },
      },
    },
    async (request) => {
      await sharing.share(principalOf(request), request.params.id, request.body.emails, request.body.message);
      return { ok: true };
    },
  );
};
