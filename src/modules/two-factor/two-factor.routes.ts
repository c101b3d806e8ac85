import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cookieValue, principalOf } from '../../core/auth.js';
import { ErrorBody, authErrors } from '../../core/schemas.js';
import type { OwnerSessionCookie } from '../../core/web/owner-session-cookie.js';
import type { TwoFactorService } from './two-factor.service.js';

const tags = ['Sign-in'];
const CodeBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 40, description: 'six digits from the app, or a recovery code' }) });

/** /api/me/two-factor: the signed-in person's own second factor (open before enrolment when REQUIRE_2FA asks for it). */
export const twoFactorRoutes: FastifyPluginAsyncTypebox<{ twoFactor: TwoFactorService; cookie: OwnerSessionCookie }> = async (
  app,
  { twoFactor, cookie },
) => {
  const ownSession = { sessionOnly: true, beforeTwoFactor: true } as const;

  app.post(
    '',
    {
      config: ownSession,
      schema: {
        tags,
        operationId: 'startTwoFactor',
        summary: 'Start setting up two-factor sign-in: an otpauth URI and its QR code (SVG) for an authenticator app',
        response: { 200: Type.Object({ otpauthUri: Type.String(), qrCodeSvg: Type.String() }), ...authErrors, 409: ErrorBody },
      },
    },
    async (request) => twoFactor.enrol(principalOf(request)),
  );

  app.post(
    '/confirm',
    {
      config: ownSession,
      schema: {
        tags,
        operationId: 'confirmTwoFactor',
        summary: 'Turn two-factor sign-in on with a code from the app; answers ten recovery codes, shown this once',
        description: "The person's other sessions end.",
        body: CodeBody,
        response: { 200: Type.Object({ recoveryCodes: Type.Array(Type.String()) }), ...authErrors, 409: ErrorBody },
      },
    },
    async (request) => ({
      recoveryCodes: await twoFactor.confirm(principalOf(request), request.body.code, cookieValue(request.headers.cookie, cookie.name)),
    }),
  );

  app.delete(
    '',
    {
      config: ownSession,
      schema: {
        tags,
        operationId: 'disableTwoFactor',
        summary: 'Turn two-factor sign-in off with a current code or a recovery code',
        description: 'Each try counts like a sign-in: five failures for the person in 15 minutes answer 429, here and at sign-in.',
        body: CodeBody,
        response: { 204: Type.Null(), ...authErrors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await twoFactor.disable(principalOf(request), request.body.code);
      return reply.code(204).send(null);
    },
  );
};
