import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieValue, type Identity } from '../core/auth.js';
import type { Role } from '../core/permissions.js';
import { dashboardPath, nextQuery } from '../core/web/dashboard-path.js';
import type { AuthService } from '../modules/auth/auth.service.js';
import { DEFAULT_BRAND, type Brand, type BrandProvider } from '../modules/branding/brand.js';
import type { SessionsService } from '../modules/sessions/sessions.service.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../modules/users/users.service.js';
import { addVisitorPageHeaders } from '../viewer/render.js';
import { sendDashboardShell } from './app-shell.js';
import { sendNotice, sendOwnerPage, type Notice } from './render.js';

export interface OwnerPagesDeps {
  auth: Pick<AuthService, 'setupTokenUsable' | 'invitationFor' | 'emailChangeFor'>;
  sessions: Pick<SessionsService, 'authenticate'>;
  brandFor: BrandProvider;
  /** The account whose verified custom domain a Host is, if any. */
  accountForHost: (host: string) => Promise<number | undefined>;
  /** Whether a Host is an account's verified domain, on any plan: these pages move to PUBLIC_URL from there. */
  isAccountDomain: (host: string) => Promise<boolean>;
  publicUrl: string;
  /** the owner session cookie's name */
  sessionCookie: string;
  signup: 'closed' | 'invite' | 'open';
  /** OpenID Connect is configured: the sign-in page offers it. */
  singleSignOn: boolean;
}

const LinkToken = Type.String({ minLength: 1, maxLength: 200 });
const TokenQuery = Type.Object({ token: Type.Optional(LinkToken) });
/** The dashboard screen to go on to once signed in (`dashboardPath`). */
const Next = Type.Optional(Type.String({ maxLength: 2000 }));
const SignInLinkQuery = Type.Object({ token: Type.Optional(LinkToken), next: Next });
const SetupQuery = Type.Object({ token: Type.Optional(LinkToken), signup: Type.Optional(LinkToken) });
const SignInQuery = Type.Object({
  error: Type.Optional(Type.String({ maxLength: 100 })),
  next: Next,
  /** `1` when the dashboard sent the person back because their session had ended. */
  ended: Type.Optional(Type.String({ maxLength: 10 })),
});
const InviteParams = Type.Object({ token: LinkToken });
/** A malformed query or path (a cut or doubled link) is answered by the page, as a link that cannot be used. */
const pageSchema = <S extends object>(schema: S) => ({ schema: { hide: true, ...schema }, attachValidation: true });

/** What single sign-on (modules/oidc) sends back as `/sign-in?error=<code>`; any other code gets the generic sentence. */
const SIGN_IN_ERRORS: Record<string, string> = {
  oidc_state: 'The sign-in took too long or was started elsewhere; try again.',
  oidc_unverified: 'Your identity provider did not confirm this e-mail address.',
  oidc_no_account: 'No linkvault account is open to this e-mail; ask an owner for an invitation.',
  oidc_failed: 'Single sign-on failed; try again or use your password.',
  oidc_disabled: 'Your linkvault sign-in has been turned off; ask an owner of your account.',
};
const SIGN_IN_FAILED = 'The sign-in did not work; try again.';

const ROLES: Record<Role, { label: string; scope: string }> = {
  owner: { label: 'Owner', scope: "Owners can do everything, including managing owners, changing the account's name and address, and deleting it." },
  admin: { label: 'Admin', scope: "Admins can do everything but change owners or the account's name and address." },
  member: { label: 'Member', scope: 'Members work with links, uploads, data rooms, client portals, templates and analytics.' },
};

const SETUP_LINK_UNUSABLE: Notice = {
  status: 404,
  heading: 'This setup link cannot be used',
  text: ['This setup link has been used or has expired. Run ', { code: 'npx linkvault setup-link' }, ' for a new one.'],
  action: { href: '/sign-in', label: 'Go to sign-in' },
};
const INVITATION_UNUSABLE: Notice = {
  status: 404,
  heading: 'This invitation cannot be used',
  text: ['This invitation has been accepted, withdrawn or has expired. Ask the person who invited you to send a new one.'],
  action: { href: '/sign-in', label: 'Go to sign-in' },
};
const SIGN_UP_CLOSED: Notice = {
  status: 404,
  heading: 'Sign-up is by invitation',
  text: ["New accounts cannot be created here. Ask an owner of your company's linkvault account to invite you."],
  action: { href: '/sign-in', label: 'Go to sign-in' },
};
const NEWCOMERS_CLOSED: Notice = {
  status: 403,
  heading: 'This invitation cannot be accepted',
  text: ['The administrator of this linkvault has closed it to new people. Ask them to let you in.'],
};

const EMAIL_CHANGE_UNUSABLE: Notice = {
  status: 404,
  heading: 'This link cannot be used',
  text: ['This link to change your sign-in address has been used or has expired. Ask for a new one under Settings › Profile.'],
  action: { href: '/app/settings/profile', label: 'Open your profile' },
};

const PASSWORD_RULES = { passwordMin: PASSWORD_MIN, passwordMax: PASSWORD_MAX };

/**
 * The pages people sign in with (sign-in, sign-in links, sign-up, first-run setup, invitations,
 * password resets, a new sign-in address) and /app, the signed-in page. Their forms are sent to the REST API by the
 * pages' script; the server only decides which form to show and in whose brand.
 */
export const ownerPagesRoutes: FastifyPluginAsyncTypebox<OwnerPagesDeps> = async (app, deps) => {
  const { auth, sessions, brandFor, accountForHost, isAccountDomain, publicUrl, sessionCookie, signup, singleSignOn } = deps;
  addVisitorPageHeaders(app);
  // People sign in only at PUBLIC_URL. An account's domain answers wherever its DNS points it, so
  // whoever controls that DNS could collect the session cookies made there, each good for every
  // account of its person.
  app.addHook('onRequest', async (request, reply) => {
    if (await isAccountDomain(request.hostname)) return reply.redirect(`${publicUrl}${request.url}`, 308);
  });

  /** The brand of the account whose custom domain the request came to, else linkvault's own. */
  async function brandAt(request: FastifyRequest): Promise<Brand> {
    const accountId = await accountForHost(request.hostname);
    return accountId === undefined ? DEFAULT_BRAND : brandFor(accountId);
  }

  async function signedIn(request: FastifyRequest): Promise<Identity | null> {
    const sessionId = cookieValue(request.headers.cookie, sessionCookie);
    return sessionId === undefined ? null : sessions.authenticate(sessionId);
  }

  app.get('/sign-in', pageSchema({ querystring: SignInQuery }), async (request, reply) => {
    const query = request.validationError ? {} : request.query;
    const next = dashboardPath(query.next);
    if (await signedIn(request)) return reply.redirect(next, 303);
    const code = request.validationError ? '' : query.error;
    const error = code === undefined ? null : Object.hasOwn(SIGN_IN_ERRORS, code) ? SIGN_IN_ERRORS[code] : SIGN_IN_FAILED;
    const notice = query.ended === '1' ? 'Your session has ended. Sign in again to go on where you were.' : null;
    const data = { error, notice, next, nextQuery: nextQuery(next), singleSignOn, signupOpen: signup === 'open', passwordMax: PASSWORD_MAX };
    return sendOwnerPage(reply, { template: 'sign-in', title: 'Sign in', brand: await brandAt(request), data });
  });

  // With a token, a button that spends it: mail scanners follow links, and must not sign anyone in.
  app.get('/sign-in/link', pageSchema({ querystring: SignInLinkQuery }), async (request, reply) => {
    const query = request.validationError ? {} : request.query;
    const next = dashboardPath(query.next);
    const title = query.token ? 'Finish signing in' : 'Email me a sign-in link';
    const data = { token: query.token, next, nextQuery: nextQuery(next) };
    return sendOwnerPage(reply, { template: 'sign-in-link', title, brand: await brandAt(request), data });
  });

  app.get('/sign-up', { schema: { hide: true } }, async (request, reply) => {
    const brand = await brandAt(request);
    if (signup !== 'open') return sendNotice(reply, brand, SIGN_UP_CLOSED);
    return sendOwnerPage(reply, { template: 'sign-up', title: 'Create an account', brand });
  });

  /** `?token=`: the first owner, with the link from the server log. `?signup=`: an address confirmed by open sign-up. */
  app.get('/setup', pageSchema({ querystring: SetupQuery }), async (request, reply) => {
    const brand = await brandAt(request);
    const query = request.validationError ? {} : request.query;
    if (query.signup !== undefined) {
      if (signup !== 'open') return sendNotice(reply, brand, SIGN_UP_CLOSED);
      const data = { signUpToken: query.signup, ...PASSWORD_RULES };
      return sendOwnerPage(reply, { template: 'setup', title: 'Set up your account', brand, data });
    }
    if (query.token === undefined || !(await auth.setupTokenUsable(query.token))) return sendNotice(reply, brand, SETUP_LINK_UNUSABLE);
    const data = { setupToken: query.token, ...PASSWORD_RULES };
    return sendOwnerPage(reply, { template: 'setup', title: 'Create the owner account', brand, data });
  });

  app.get('/invite/:token', pageSchema({ params: InviteParams }), async (request, reply) => {
    const invitation = request.validationError ? null : await auth.invitationFor(request.params.token);
    if (!invitation) return sendNotice(reply, await brandAt(request), INVITATION_UNUSABLE);
    const brand = await brandFor(invitation.accountId);
    if (!invitation.hasSignIn && signup === 'closed') return sendNotice(reply, brand, NEWCOMERS_CLOSED);
    const role = ROLES[invitation.role];
    const data = {
      token: request.params.token,
      accountName: invitation.accountName,
      email: invitation.email,
      roleLabel: role.label,
      roleScope: role.scope,
      hasSignIn: invitation.hasSignIn,
      ...PASSWORD_RULES,
    };
    return sendOwnerPage(reply, { template: 'invite', title: `Join ${invitation.accountName}`, brand, data });
  });

  app.get('/reset-password', pageSchema({ querystring: TokenQuery }), async (request, reply) => {
    const token = request.validationError ? undefined : request.query.token;
    const title = token ? 'Choose a new password' : 'Reset your password';
    return sendOwnerPage(reply, { template: 'reset-password', title, brand: await brandAt(request), data: { token, ...PASSWORD_RULES } });
  });

  // A button that spends the link, as for sign-in links: a mail scanner's visit changes nothing.
  app.get('/confirm-email', pageSchema({ querystring: TokenQuery }), async (request, reply) => {
    const token = request.validationError ? undefined : request.query.token;
    const email = token === undefined ? undefined : await auth.emailChangeFor(token);
    if (email === undefined) return sendNotice(reply, await brandAt(request), EMAIL_CHANGE_UNUSABLE);
    return sendOwnerPage(reply, { template: 'confirm-email', title: 'Use your new address', brand: await brandAt(request), data: { token, email } });
  });

  // The dashboard: its shell for /app and every path under it, whose router in the browser takes over.
  const dashboard = async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = await signedIn(request);
    // Signed out: to sign-in, and from there back to the screen asked for.
    if (!identity) return reply.redirect(request.url === '/app' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(request.url)}`, 303);
    return sendDashboardShell(reply, await brandFor(identity.accountId));
  };
  app.get('/app', { schema: { hide: true } }, dashboard);
  app.get('/app/*', { schema: { hide: true } }, dashboard);

  app.get('/', { schema: { hide: true } }, async (request, reply) => reply.redirect((await signedIn(request)) ? '/app' : '/sign-in', 303));
};
