import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { refuseHeadOfSpendingDownload, sendFile } from '../../core/file-response.js';
import { limitByClientIp, type WindowCounter } from '../../core/rate-limit.js';
import { ErrorBody, StringId, authErrors } from '../../core/schemas.js';
import type { DownloadsService } from './downloads.service.js';

const tags = ['Downloads'];
const LinkParams = Type.Object({ id: StringId });
const DOWNLOADS_PER_MINUTE_PER_IP = 120;

/** The query of a download of the original: the proof of purchase it spends. */
export const DownloadProof = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 200 })),
  session_id: Type.Optional(Type.String({ maxLength: 300 })),
});

/** Ample for a download manager fetching ranges; far too few to guess tokens or sessions. Shared by the viewer's route. */
export const limitDownloads = (counter: WindowCounter) =>
  limitByClientIp(counter, 'download-original', DOWNLOADS_PER_MINUTE_PER_IP, 'Too many download attempts; try again in a minute');

export const downloadsRoutes: FastifyPluginAsyncTypebox<{
  downloads: DownloadsService;
  counter: WindowCounter;
}> = async (app, { downloads, counter }) => {
  app.post(
    '/:id/download-tokens',
    {
      schema: {
        tags,
        operationId: 'createDownloadToken',
        summary: 'Issue a token that lets its holder download the original file',
        description: 'The token is shown once; each download spends one use.',
        params: LinkParams,
        body: Type.Optional(
          Type.Object({
            uses: Type.Integer({ minimum: 1, maximum: 1000, default: 1 }),
            ttlSeconds: Type.Integer({ minimum: 60, maximum: 30 * 86_400, default: 86_400 }),
          }),
        ),
        response: {
          200: Type.Object({ token: Type.String(), expires_at: Type.String({ format: 'date-time' }), uses: Type.Integer() }),
          ...authErrors,
          404: ErrorBody,
          410: ErrorBody,
        },
      },
    },
    async (request) => {
      const { uses = 1, ttlSeconds = 86_400 } = request.body ?? {};
      return downloads.issueToken(principalOf(request).accountId, request.params.id, { uses, ttlSeconds });
    },
  );

  app.get(
    '/:id/download-original',
    {
      config: { public: true },
      onRequest: [refuseHeadOfSpendingDownload, limitDownloads(counter)],
      schema: {
        tags,
        operationId: 'downloadOriginal',
        summary: 'The original, un-watermarked file, against a download token or a paid checkout session',
        description:
          'Needs no API key. Supports HTTP Range; every request spends one use of the token, or one of the 5 downloads ' +
          '(within 7 days) a paid Stripe checkout session allows.',
        security: [],
        params: LinkParams,
        querystring: DownloadProof,
        response: {
          200: Type.Unknown({ description: 'the file, as an attachment' }),
          206: Type.Unknown({ description: 'the requested byte range' }),
          400: ErrorBody,
          403: ErrorBody,
          410: ErrorBody,
          416: ErrorBody,
          429: ErrorBody,
          502: ErrorBody,
          503: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { token, session_id: sessionId } = request.query;
      return sendFile(request, reply, await downloads.redeem({ linkId: request.params.id }, { token, sessionId }), 'attachment');
    },
  );
};
