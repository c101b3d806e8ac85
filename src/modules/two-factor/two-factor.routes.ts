import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cookieValue, principalOf } from '../../core/auth.js';
import { ErrorBody, authErrors } from '../../core/schemas.js';
import type { OwnerSessionCookie } from '../../core/web/owner-session-cookie.js';
import { PASSWORD_MAX } from '../users/users.service.js';
import type { TwoFactorService } from './two-factor.service.js';

const tags = ['Sign-in'];
const Code = Type.String({ minLength: 1, maxLength: 40, description: 'six digits from the app, or a recovery code' });
const CodeBody = Type.Object({ code: Code });
const ConfirmBody = Type.Object({
  code: Code,
  password: Type.Optional(
    Type.String({ minLength: 1, maxLength: PASSWORD_MAX, description: 'the current password: required of a person who has one' }),
  ),
});

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
        description:
          'A person without a password (magic links, single sign-on) must have signed in within the last 10 minutes (403 otherwise): switching accounts keeps the time of the sign-in.',
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
        description:
          "A person who has a password gives it too, so that a session alone (a stolen one) cannot put a factor of its own on the person; a wrong one counts like a failed sign-in (422, then 429 after five). A person without one must have signed in within the last 10 minutes (403 otherwise). The person's other sessions end.",
        body: ConfirmBody,
        response: { 200: Type.Object({ recoveryCodes: Type.Array(Type.String()) }), ...authErrors, 409: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => ({
      recoveryCodes: await twoFactor.confirm(principalOf(request), request.body, cookieValue(request.headers.cookie, cookie.name)),
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
