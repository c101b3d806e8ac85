import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { tooManyRequests, unauthorized } from './errors.js';
import { assertPlanAtLeast, type Plan } from './plans.js';
import type { WindowCounter, WindowHit } from './rate-limit.js';

export interface Principal {
  accountId: number;
  apiKeyId: number;
  plan: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Called by visitors (no API key): download-original, checkout, the payment webhook. */
    public?: boolean;
    /** The plan an API route needs; unset, the API's own minimum (professional). */
    plan?: Plan;
  }
}

export interface KeyAuthenticator {
  authenticate(presentedKey: string): Promise<Principal | null>;
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/** The key in `Authorization: Bearer <key>`; 401 when there is none. */
function presentedKey(request: FastifyRequest): string {
  const match = BEARER.exec(request.headers.authorization ?? '');
  if (!match?.[1]) throw unauthorized();
  return match[1];
}

/** Per-key fixed window: sets RateLimit-* headers on every answer, 429 over the limit. */
function applyRateLimit({ count, resetAt }: WindowHit, reply: FastifyReply, perMinute: number): void {
  const resetSeconds = Math.max(0, Math.ceil((resetAt - Date.now()) / 1000));
  reply.header('ratelimit-limit', perMinute);
  reply.header('ratelimit-remaining', Math.max(0, perMinute - count));
  reply.header('ratelimit-reset', resetSeconds);
  if (count > perMinute) {
    throw tooManyRequests(resetSeconds, `Rate limit of ${perMinute} requests per minute exceeded for this API key`);
  }
}

/** Every /api route needs at least this plan; a route may ask for more in its options. */
export const API_MINIMUM_PLAN: Plan = 'professional';

/**
 * The one onRequest hook of /api, before any body is read: key → rate limit → plan.
 * The plan comes from the matched route's options, never from the URL, which the router
 * matches only after decoding it. Routes marked `public` (called by visitors) skip it.
 */
export function guardApi(options: { keys: KeyAuthenticator; counter: WindowCounter; perMinute: number }): onRequestAsyncHookHandler {
  const { keys, counter, perMinute } = options;
  // One async step per lookup and nothing more: this runs before every API request.
  return async (request, reply) => {
    request.principal = null;
    if (request.routeOptions.config.public) return;
    const principal = await keys.authenticate(presentedKey(request));
    if (!principal) throw unauthorized('The API key is invalid, inactive or revoked');
    request.principal = principal;
    applyRateLimit(await counter.hit(`key:${principal.apiKeyId}`, 60_000), reply, perMinute);
    assertPlanAtLeast(principal.plan, request.routeOptions.config.plan ?? API_MINIMUM_PLAN);
  };
}

/** The principal of an authenticated route (the auth hook guarantees it). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
