import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, authErrors } from '../../core/schemas.js';
import type { FileIntake } from '../files/file-intake.js';
import { answerOf, IdempotencyHeaders } from '../idempotency/idempotency-http.js';
import { receiveUpload } from '../files/multipart-upload.js';
import { streamedForm } from '../../core/validation.js';
import { checkUploadField, UploadForm } from './upload-form.js';
import type { UploadService } from './upload.service.js';

export const uploadRoutes: FastifyPluginAsyncTypebox<{ uploads: UploadService; intake: FileIntake }> = async (app, { uploads, intake }) => {
  app.post(
    '',
    {
      schema: {
        tags: ['Links'],
        operationId: 'uploadFile',
        summary: 'Upload a file and get its viewer link',
        description: 'multipart/form-data; the fields may come in any order, before or after the file.',
        consumes: ['multipart/form-data'],
        headers: IdempotencyHeaders,
        body: streamedForm(UploadForm),
        response: {
          200: Type.Object({ id: Type.String(), viewer_url: Type.String() }),
          ...authErrors,
          413: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (request, reply) =>
      answerOf(
        reply,
        await uploads.createLink(
          principalOf(request),
          (blobKey) => receiveUpload(request, intake, blobKey, checkUploadField),
          request.headers['idempotency-key'],
        ),
      ),
  );
};
