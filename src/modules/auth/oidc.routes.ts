import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieValue } from '../../core/auth.js';
import { AppError } from '../../core/errors.js';
import { ErrorBody } from '../../core/schemas.js';
import { setOwnerSession, type OwnerSessionCookie } from '../../core/web/owner-session-cookie.js';
import { clientOf } from './auth.routes.js';
import { FLOW_TTL_SECONDS, SingleSignOnRefused, type OidcService } from './oidc.service.js';

const tags = ['Sign-in'];
const FLOW_COOKIE_PATH = '/auth/oidc';
const ProviderText = Type.String({ maxLength: 2048 });
const CallbackQuery = Type.Object({
  code: Type.Optional(ProviderText),
  state: Type.Optional(ProviderText),
  iss: Type.Optional(ProviderText),
  error: Type.Optional(ProviderText),
  error_description: Type.Optional(ProviderText),
});
const StartQuery = Type.Object({
  next: Type.Optional(
    Type.String({ maxLength: 2000, description: 'The dashboard path (/app/…) to go on to once signed in; any other value means /app' }),
  ),
});
const notConfigured = () => new AppError(404, 'Single sign-on is not configured on this server');
/**
 * A redirect is these routes' success, which OpenAPI linters do not count as one: `default` is
 * the error shape any route answers (a 500), and keeps the document free of that warning.
 */
const redirectAnswers = (description: string) => ({ 303: Type.Null({ description }), 404: ErrorBody, default: ErrorBody });

/**
 * The browser's side of OpenID Connect: /auth/oidc/start sends it to the identity provider with a
 * sealed flow cookie (PKCE verifier, state, nonce, the screen to go on to), /auth/oidc/callback
 * brings it back signed in to that screen, or to /sign-in?error=<code>. Browser redirects, so outside /api and its guard.
 */
export const oidcRoutes: FastifyPluginAsyncTypebox<{ oidc: OidcService | undefined; cookie: OwnerSessionCookie }> = async (app, { oidc, cookie }) => {
  // Path-scoped, so it never travels beyond these two routes; `__Secure-` behind https.
  const flowCookie = cookie.secure ? '__Secure-lv_oidc' : 'lv_oidc';
  const setFlowCookie = (reply: FastifyReply, value: string, maxAgeSeconds: number) =>
    reply.header(
      'set-cookie',
      `${flowCookie}=${value}; Path=${FLOW_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${cookie.secure ? '; Secure' : ''}`,
    );

  function refused(request: FastifyRequest, reply: FastifyReply, refusal: SingleSignOnRefused) {
    request.log.info({ refusal: refusal.code, reason: refusal.message }, 'single sign-on refused');
    return reply.header('cache-control', 'no-store').redirect(`/sign-in?error=${refusal.code}`, 303);
  }

  app.get(
    '/auth/oidc/start',
    {
      // An unusable `next` (too long) goes on to /app, as any other that is not a dashboard path.
      attachValidation: true,
      schema: {
        tags,
        operationId: 'startSingleSignOn',
        summary: 'Sign in with the OpenID Connect provider: redirects the browser to it (when OIDC_ISSUER is set)',
        security: [],
        querystring: StartQuery,
        response: redirectAnswers("To the provider's sign-in page; when it cannot be reached, to /sign-in?error=oidc_failed"),
      },
    },
    async (request, reply) => {
      if (!oidc) throw notConfigured();
      try {
        const { authorizationUrl, flow } = await oidc.begin(request.validationError ? undefined : request.query.next);
        setFlowCookie(reply, flow, FLOW_TTL_SECONDS);
        return reply.header('cache-control', 'no-store').redirect(authorizationUrl, 303);
      } catch (error) {
        if (error instanceof SingleSignOnRefused) return refused(request, reply, error);
        throw error;
      }
    },
  );

  app.get(
    '/auth/oidc/callback',
    {
      // A malformed answer from the provider ends on the sign-in page like any other refusal.
      attachValidation: true,
      schema: {
        tags,
        operationId: 'finishSingleSignOn',
        summary: "Where the OpenID Connect provider sends the browser back: signs in and redirects to /app (or the start's `next`)",
        description:
          'A verified e-mail signs in its person, accepts a pending invitation, or joins the first account when its domain is in ' +
          'OIDC_AUTO_JOIN_DOMAINS. Otherwise the browser goes to /sign-in?error=<code> (oidc_state, oidc_failed, oidc_unverified, ' +
          'oidc_no_account, oidc_disabled).',
        security: [],
        querystring: CallbackQuery,
        response: redirectAnswers("To /app (or the start's `next`) with the session cookie set, or to /sign-in?error=<code>"),
      },
    },
    async (request, reply) => {
      if (!oidc) throw notConfigured();
      setFlowCookie(reply, '', 0); // single use, whatever the outcome
      const queryAt = request.url.indexOf('?');
      try {
        if (request.validationError) throw new SingleSignOnRefused('oidc_failed', 'the callback query is malformed');
        const callbackQuery = queryAt === -1 ? '' : request.url.slice(queryAt);
        const started = await oidc.complete(callbackQuery, cookieValue(request.headers.cookie, flowCookie), clientOf(request));
        setOwnerSession(reply, cookie, started.sessionId, started.maxAgeSeconds);
        return reply.header('cache-control', 'no-store').redirect(started.next, 303);
      } catch (error) {
        if (error instanceof SingleSignOnRefused) return refused(request, reply, error);
        throw error;
      }
    },
  );
};
