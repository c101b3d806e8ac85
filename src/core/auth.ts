import type { FastifyContextConfig, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { safeEqual } from '../infra/crypto/tokens.js';
import { forbidden, tooManyRequests, unauthorized } from './errors.js';
import { assertMayAct, roleAtLeast, type Area, type Role } from './permissions.js';
import { assertPlanAtLeast, planOfArea, type Plan } from './plans.js';
import type { WindowCounter, WindowHit } from './rate-limit.js';

/** Who acts: an API key (with its maker's role) or a signed-in person in their current account. */
export interface Identity {
  accountId: number;
  plan: string;
  role: Role;
  via: 'key' | 'session';
  actor: { type: 'user' | 'api_key'; id: number; label: string };
  /** Whether the person acting (a key's maker) has turned on two-factor sign-in; null for a key of the command line, which is no one's. */
  twoFactor: boolean | null;
  /** With a session: what it needs beyond the cookie. */
  session?: { publicId: string; csrfToken: string; signedInAt: number };
}

/** The identity of this request, and where it came from (for the audit log). */
export interface Principal extends Identity {
  ip: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Called without a key or session (visitors, sign-in): download-original, checkout, the payment webhook, /api/auth. */
    public?: boolean;
    /** The area of the permission table the route acts in; unset, `content` (every member). */
    area?: Area;
    /** Only a signed-in person can call it (their sessions, two-factor, switching accounts). */
    sessionOnly?: boolean;
    /** Open to an owner or admin who has not yet turned on the two-factor sign-in REQUIRE_2FA asks for. */
    beforeTwoFactor?: boolean;
  }
}

export interface KeyAuthenticator {
  authenticate(presentedKey: string): Promise<Identity | null>;
}

export interface SessionAuthenticator {
  /** The person and account of a live session, or null for an unknown, ended or expired one. */
  authenticate(sessionId: string): Promise<Identity | null>;
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The key in `Authorization: Bearer <key>`; 401 when the header is there without one. */
function presentedKey(header: string): string {
  const match = BEARER.exec(header);
  if (!match?.[1]) throw unauthorized();
  return match[1];
}

/** One cookie's value from the Cookie header, without parsing the others. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Per-caller fixed window: sets RateLimit-* headers on every answer, 429 over the limit. */
function applyRateLimit({ count, resetInMs }: WindowHit, reply: FastifyReply, perMinute: number, who: string): void {
  const resetSeconds = Math.max(0, Math.ceil(resetInMs / 1000));
  reply.header('ratelimit-limit', perMinute);
  reply.header('ratelimit-remaining', Math.max(0, perMinute - count));
  reply.header('ratelimit-reset', resetSeconds);
  if (count > perMinute) {
    throw tooManyRequests(resetSeconds, `Rate limit of ${perMinute} requests per minute exceeded for this ${who}`);
  }
}

/**
 * A browser request that changes something must come from our own pages: where the browser
 * names the origin (Origin, Sec-Fetch-Site) it must be ours. Our origin is PUBLIC_URL's, or the
 * one the request was addressed to (a test server on a random port, a second public name).
 */
export function assertSameOrigin(request: FastifyRequest, publicOrigin: string): void {
  const refused = () => forbidden('Cross-site request refused: this request must come from linkvault itself');
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') throw refused();
  const origin = request.headers.origin;
  // A page sent with `Referrer-Policy: no-referrer` (the visitor pages) posts its forms with `Origin: null`;
  // the browser's own Sec-Fetch-Site, which no page can set, still says where they come from.
  if (origin === 'null' && site === 'same-origin') return;
  if (origin !== undefined && origin !== publicOrigin && origin !== `${request.protocol}://${request.host}`) throw refused();
}

function assertCsrfToken(request: FastifyRequest, expected: string): void {
  const presented = request.headers['x-csrf-token'];
  if (typeof presented !== 'string' || !safeEqual(presented, expected)) {
    throw forbidden('This request needs the X-CSRF-Token header that GET /api/me gives to the signed-in session');
  }
}

/**
 * With REQUIRE_2FA, an owner or admin without two-factor sign-in may only enrol, whether they
 * come with a session or with a key they made; a key of the command line is the operator's.
 */
function assertTwoFactorWhereRequired(identity: Identity, config: FastifyContextConfig): void {
  if (identity.twoFactor !== false || !roleAtLeast(identity.role, 'admin') || config.beforeTwoFactor) return;
  throw forbidden(
    identity.via === 'key'
      ? "This key's maker must turn on two-factor sign-in first: owners and admins of this linkvault need it"
      : 'Turn on two-factor sign-in first: owners and admins of this linkvault need it (POST /api/me/two-factor)',
  );
}

/** Every /api route needs at least this plan when called with a key; a route may ask for more in its options. */
export const API_MINIMUM_PLAN: Plan = 'professional';

export interface GuardOptions {
  keys: KeyAuthenticator;
  sessions: SessionAuthenticator;
  /** the session cookie's name (`__Host-lv_session` behind https) */
  sessionCookie: string;
  publicOrigin: string;
  counter: WindowCounter;
  perMinute: number;
  require2fa: boolean;
}

/**
 * The one onRequest hook of /api, before any body is read. A key is judged by the key alone:
 * key → rate limit → plan (professional, or the area's if more). Without a key, the session cookie:
 * session → same origin and CSRF token on changes → rate limit → the area's plan if it names
 * one (the API plan is about keys). Then, for both, two-factor enrolment when required, and the
 * role the route's area needs.
 * The plan and area come from the matched route's options, never from the URL.
 */
export function guardApi(options: GuardOptions): onRequestAsyncHookHandler {
  const { keys, sessions, sessionCookie, publicOrigin, counter, perMinute, require2fa } = options;
  return async (request, reply) => {
    request.principal = null;
    const config = request.routeOptions.config;
    if (config.public) return;
    const area = config.area ?? 'content';
    const authorization = request.headers.authorization;
    let identity: Identity | null;
    if (authorization !== undefined) {
      identity = await keys.authenticate(presentedKey(authorization));
      if (!identity) throw unauthorized('The API key is invalid, inactive or revoked');
      applyRateLimit(await counter.hit(`key:${identity.actor.id}`, 60_000), reply, perMinute, 'API key');
      assertPlanAtLeast(identity.plan, planOfArea(area) ?? API_MINIMUM_PLAN);
      if (config.sessionOnly) throw forbidden('This endpoint is for a signed-in person, not an API key');
    } else {
      const sessionId = cookieValue(request.headers.cookie, sessionCookie);
      if (sessionId === undefined) throw unauthorized('Sign in, or send an API key as "Authorization: Bearer <key>"');
      identity = await sessions.authenticate(sessionId);
      if (!identity?.session) throw unauthorized('Your session has ended: sign in again');
      if (!SAFE_METHODS.has(request.method)) {
        assertSameOrigin(request, publicOrigin);
        assertCsrfToken(request, identity.session.csrfToken);
      }
      applyRateLimit(await counter.hit(`user:${identity.actor.id}`, 60_000), reply, perMinute, 'person');
      const plan = planOfArea(area);
      if (plan) assertPlanAtLeast(identity.plan, plan);
    }
    if (require2fa) assertTwoFactorWhereRequired(identity, config);
    assertMayAct(identity.role, area);
    request.principal = { ...identity, ip: request.ip };
  };
}

/** The principal of an authenticated route (the auth hook guarantees it). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
