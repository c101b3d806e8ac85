import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { assertSameOrigin, cookieValue, principalOf } from '../../core/auth.js';
import { forbidden } from '../../core/errors.js';
import { ErrorBody, authErrors } from '../../core/schemas.js';
import { clearOwnerSession, setOwnerSession, type OwnerSessionCookie } from '../../core/web/owner-session-cookie.js';
import type { Client, StartedSession } from '../sessions/sessions.service.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../users/users.service.js';
import type { AuthService } from './auth.service.js';

const tags = ['Sign-in'];
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' });
const Password = Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX });
/** At sign-in any length is compared, so a rule change never locks out an old password's owner. */
const AnyPassword = Type.String({ minLength: 1, maxLength: PASSWORD_MAX });
const Token = Type.String({ minLength: 1, maxLength: 200 });
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Code = Type.String({ minLength: 1, maxLength: 40 });
/** The proof a signed-in person gives before a change of consequence (`proveSelf`): what their sign-in asks. */
export const SelfProofFields = { currentPassword: Type.Optional(AnyPassword), code: Type.Optional(Code) };

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
export const MeBody = Type.Object({
  user: Type.Union([
    Type.Object({
      id: Type.Integer(),
      email: Type.String(),
      name: Type.String(),
      twoFactor: Type.Boolean(),
      hasPassword: Type.Boolean({ description: 'false for a person who signs in only by single sign-on or e-mailed links' }),
      viewAlerts: Type.Boolean({
        description: "whether the person is e-mailed about views of the links they made (the account's view alert mode says how often)",
      }),
    }),
    Type.Null(),
  ]),
  account: Type.Object({ id: Type.Integer(), name: Type.String(), plan: Type.String() }),
  role: Role,
  accounts: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), role: Role })),
  csrfToken: Type.Union([Type.String(), Type.Null()], { description: 'send as X-CSRF-Token with every change made through the session' }),
  areas: Type.Array(Type.String(), {
    description: "the areas of the product this role may manage (the permission table's names); a client hides the others",
  }),
  areasAbovePlan: Type.Array(Type.Object({ area: Type.String(), plan: Type.String() }), {
    description:
      "of those areas, the ones the account's plan does not include (their routes answer 403), each with the least plan that does; a client offers them as an upgrade",
  }),
});

const publicErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody } as const;
const Accepted = Type.Object({ message: Type.String() });

export const clientOf = (request: FastifyRequest): Client => ({ ip: request.ip, userAgent: request.headers['user-agent'] ?? '' });

/**
 * /api/auth (called before anyone is signed in, so `public` for the guard, but only from our own
 * origin) and /api/me.
 */
export interface AuthRoutesDeps {
  auth: AuthService;
  cookie: OwnerSessionCookie;
  publicOrigin: string;
  /** Whether a Host is an account's verified domain: no one signs in there (see the owner pages). */
  isAccountDomain: (host: string) => Promise<boolean>;
}

export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesDeps> = async (app, { auth, cookie, publicOrigin, isAccountDomain }) => {
  const beforeSignIn = { public: true } as const;
  // The guard skips the routes that come before sign-in; they still answer only our own pages, at PUBLIC_URL.
  app.addHook('onRequest', async (request) => {
    if (!request.routeOptions.config.public) return;
    assertSameOrigin(request, publicOrigin);
    if (await isAccountDomain(request.hostname)) throw forbidden(`Sign in at ${publicOrigin}: people do not sign in on an account's own domain`);
  });

  /** Sets the cookie of a new session and answers as GET /api/me does. */
  async function answerSignedIn(request: FastifyRequest, reply: FastifyReply, started: StartedSession) {
    setOwnerSession(reply, cookie, started.sessionId, started.maxAgeSeconds);
    return auth.meForSession(started.sessionId, request.ip);
  }

  app.post(
    '/auth/setup',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'setUp',
        summary: 'First run: create the first owner with the link from the server log',
        security: [],
        body: Type.Object({ token: Token, name: Name, email: Email, password: Password, companyName: Name }),
        response: { 200: MeBody, ...publicErrors, 422: ErrorBody },
      },
    },
    async (request, reply) => answerSignedIn(request, reply, await auth.setup(request.body, clientOf(request))),
  );

  app.post(
    '/auth/sign-in',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'signIn',
        summary: 'Sign in with e-mail and password (and the two-factor code when it is on)',
        description:
          'A 401 with `X-Two-Factor: required` asks for `code`. Five failures for one e-mail, or twenty from one address, in 15 minutes answer 429.',
        security: [],
        body: Type.Object({ email: Email, password: AnyPassword, code: Type.Optional(Code) }),
        response: { 200: MeBody, ...publicErrors },
      },
    },
    async (request, reply) => answerSignedIn(request, reply, await auth.signIn(request.body, clientOf(request))),
  );

  app.post(
    '/auth/sign-out',
    {
      config: beforeSignIn,
      schema: { tags, operationId: 'signOut', summary: 'End this session', security: [], response: { 204: Type.Null(), 403: ErrorBody } },
    },
    async (request, reply) => {
      await auth.signOut(cookieValue(request.headers.cookie, cookie.name));
      clearOwnerSession(reply, cookie);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/magic-link',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'sendMagicLink',
        summary: 'E-mail a sign-in link valid 15 minutes (always 202)',
        security: [],
        body: Type.Object({
          email: Email,
          next: Type.Optional(
            Type.String({
              maxLength: 2000,
              description: 'The dashboard path (/app/…) the link goes on to once signed in; any other value means /app',
            }),
          ),
        }),
        response: { 202: Accepted, ...publicErrors },
      },
    },
    async (request, reply) => {
      await auth.sendMagicLink(request.body.email, clientOf(request), request.body.next);
      return reply.code(202).send({ message: 'If this e-mail has a linkvault sign-in, a link is on its way.' });
    },
  );

  app.post(
    '/auth/magic-link/confirm',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'signInWithLink',
        summary: 'Sign in with the token of an e-mailed (or CLI-printed) sign-in link',
        security: [],
        body: Type.Object({ token: Token, code: Type.Optional(Code) }),
        response: { 200: MeBody, ...publicErrors },
      },
    },
    async (request, reply) => answerSignedIn(request, reply, await auth.signInWithLink(request.body, clientOf(request))),
  );

  app.post(
    '/auth/password-reset',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'requestPasswordReset',
        summary: 'E-mail a password reset link valid 15 minutes (always 202)',
        security: [],
        body: Type.Object({ email: Email }),
        response: { 202: Accepted, ...publicErrors },
      },
    },
    async (request, reply) => {
      await auth.sendPasswordReset(request.body.email, clientOf(request));
      return reply.code(202).send({ message: 'If this e-mail has a linkvault sign-in, a reset link is on its way.' });
    },
  );

  app.post(
    '/auth/password-reset/confirm',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'resetPassword',
        summary: 'Set a new password with the token of a reset link; every session of the person ends',
        security: [],
        body: Type.Object({ token: Token, password: Password }),
        response: { 204: Type.Null(), ...publicErrors },
      },
    },
    async (request, reply) => {
      await auth.resetPassword(request.body, clientOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/sign-up',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'signUp',
        summary: 'With SIGNUP=open: e-mail a link that confirms the address and creates an account (always 202)',
        security: [],
        body: Type.Object({ email: Email }),
        response: { 202: Accepted, ...publicErrors },
      },
    },
    async (request, reply) => {
      await auth.startSignUp(request.body.email, clientOf(request));
      return reply.code(202).send({ message: 'A confirmation link is on its way to this e-mail.' });
    },
  );

  app.post(
    '/auth/sign-up/confirm',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'confirmSignUp',
        summary: 'With SIGNUP=open: create the account of a confirmed e-mail',
        security: [],
        body: Type.Object({ token: Token, name: Name, password: Password, companyName: Name }),
        response: { 200: MeBody, ...publicErrors, 422: ErrorBody },
      },
    },
    async (request, reply) => answerSignedIn(request, reply, await auth.completeSignUp(request.body, clientOf(request))),
  );

  app.post(
    '/auth/switch-account',
    {
      config: { sessionOnly: true, beforeTwoFactor: true },
      schema: {
        tags,
        operationId: 'switchAccount',
        summary: "Work in another of the person's accounts (the session gets a new id)",
        body: Type.Object({ accountId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
        response: { 200: MeBody, ...authErrors, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      const sessionId = cookieValue(request.headers.cookie, cookie.name) ?? '';
      const started = await auth.switchAccount(principalOf(request), sessionId, request.body.accountId, clientOf(request));
      return answerSignedIn(request, reply, started);
    },
  );

  app.post(
    '/invitations/accept',
    {
      config: beforeSignIn,
      schema: {
        tags: ['Members'],
        operationId: 'acceptInvitation',
        summary: 'Join the account of an invitation (a new person gives a name and password; an existing one their password)',
        description:
          'A person who already signs in proves it as at sign-in: their password and, when they turned it on, the two-factor `code` (401 with `X-Two-Factor: required` while it is missing); each try counts like a sign-in (429 after five failures in 15 minutes).',
        security: [],
        body: Type.Object({ token: Token, name: Type.Optional(Name), password: AnyPassword, code: Type.Optional(Code) }),
        response: { 200: MeBody, ...publicErrors, 422: ErrorBody },
      },
    },
    async (request, reply) => answerSignedIn(request, reply, await auth.acceptInvitation(request.body, clientOf(request))),
  );

  app.post(
    '/me/password',
    {
      config: { sessionOnly: true },
      schema: {
        tags,
        operationId: 'changePassword',
        summary: "Change the signed-in person's password with the current one; their other sessions end",
        description: '422 when the current password is not right (counted like a failed sign-in: 429 after five in 15 minutes).',
        body: Type.Object({ currentPassword: AnyPassword, newPassword: Password }),
        response: { 204: Type.Null(), ...authErrors, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      await auth.changePassword(principalOf(request), request.body, cookieValue(request.headers.cookie, cookie.name), clientOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/me/email',
    {
      config: { sessionOnly: true },
      schema: {
        tags,
        operationId: 'requestEmailChange',
        summary: 'Sign in with another address: e-mail it a link, valid an hour, that makes the change (202)',
        description:
          'Proved with `currentPassword` when the person has a password, and `code` when their two-factor is on: 422 when one is missing or not right (counted like a failed sign-in: 429 after five in 15 minutes). 409 when the address is already theirs or has a sign-in of its own. The address stays as it is until the link is opened; a newer request spends the older link.',
        body: Type.Object({ email: Email, ...SelfProofFields }),
        response: { 202: Accepted, ...authErrors, 409: ErrorBody, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      const email = await auth.requestEmailChange(principalOf(request), request.body, clientOf(request));
      return reply.code(202).send({ message: `A link is on its way to ${email}. Open it within an hour to sign in with that address.` });
    },
  );

  app.post(
    '/auth/email-change/confirm',
    {
      config: beforeSignIn,
      schema: {
        tags,
        operationId: 'confirmEmailChange',
        summary: 'Make the new address of an e-mail change link the sign-in; the old address is told',
        description: 'Every other link mailed to the person is spent; their sessions stay. 409 when the address has a sign-in of its own by now.',
        security: [],
        body: Type.Object({ token: Token }),
        response: { 204: Type.Null(), ...publicErrors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      await auth.confirmEmailChange(request.body.token, clientOf(request));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/me',
    {
      config: { sessionOnly: true },
      schema: {
        tags,
        operationId: 'updateMe',
        summary: "Change the signed-in person's name, or whether they are e-mailed about views of their links; answers as GET /api/me",
        body: Type.Object({ name: Type.Optional(Name), viewAlerts: Type.Optional(Type.Boolean()) }, { minProperties: 1 }),
        response: { 200: MeBody, ...authErrors, 422: ErrorBody },
      },
    },
    async (request) => auth.updateMe(principalOf(request), request.body, clientOf(request)),
  );

  app.delete(
    '/me',
    {
      config: { sessionOnly: true },
      schema: {
        tags,
        operationId: 'deleteMe',
        summary: "Delete the signed-in person's sign-in, for good (204)",
        description:
          'They leave every account they belong to, as `DELETE /api/me/membership` does in one (each records `member.left`; keys they made are revoked, invitations they made withdrawn), and their sign-in goes with every session and link mailed to them; the links they made stay with their accounts. 422 while they are the last owner of an account (the answer names it: make someone else owner, or delete the account, first). Proved with `currentPassword` when the person has a password, and `code` when their two-factor is on: 422 when one is missing or not right (counted like a failed sign-in: 429 after five in 15 minutes).',
        body: Type.Object(SelfProofFields),
        response: { 204: Type.Null(), ...authErrors, 422: ErrorBody },
      },
    },
    async (request, reply) => {
      await auth.deleteSelf(principalOf(request), request.body, clientOf(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/me',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        operationId: 'getMe',
        summary: 'Who is calling: the person (null with a key), account, role, accounts and CSRF token',
        response: { 200: MeBody, ...authErrors },
      },
    },
    async (request) => auth.me(principalOf(request)),
  );
};
