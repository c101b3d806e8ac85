import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../core/auth.js';
import { ErrorBody, authErrors } from '../../core/schemas.js';
import type { FileIntake } from '../files/file-intake.js';
import { receiveUpload } from '../files/multipart-upload.js';
import type { UploadService } from './upload.service.js';

const FORM_FIELDS = `Form fields (multipart/form-data, in any order): file (required, at most 100 MB);
expiration 1h|24h|7d (7d); addPassword 0|1 with password; hasWatermark, requiresApproval, requiresOtp 0|1;
allowedEmails, allowedDomains (comma-separated); bookingUrl; previewPages (>= 1);
viewSessionTtlSeconds 60-86400 (3600); maxViews (0 = unlimited); requirePaymentToDownload 0|1 with
downloadPrice (integer cents >= 50) and downloadCurrency (lowercase code, usd).`;

export const uploadRoutes: FastifyPluginAsyncTypebox<{ uploads: UploadService; intake: FileIntake }> = async (app, { uploads, intake }) => {
  app.post('', {
    schema: {
      tags: ['Links'],
      summary: 'Upload a file and get its viewer link',
      description: FORM_FIELDS,
      consumes: ['multipart/form-data'],
      response: {
        200: Type.Object({ id: Type.String(), viewer_url: Type.String() }),
        ...authErrors,
        413: ErrorBody,
        422: ErrorBody,
      },
    },
  }, async (request) =>
    uploads.createLink(principalOf(request).accountId, (blobKey) => receiveUpload(request, intake, blobKey)),
  );
};
