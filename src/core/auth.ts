import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { unauthorized } from './errors.js';
import { assertPlanAtLeast, type Plan } from './plans.js';
import type { WindowCounter } from './rate-limit.js';
import { tooManyRequests } from './errors.js';

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
  }
}

export interface KeyAuthenticator {
  authenticate(presentedKey: string): Promise<Principal | null>;
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/** onRequest hook: resolves the API key into a principal, before any body is read. */
export function authenticateApiKey(keys: KeyAuthenticator): onRequestAsyncHookHandler {
  return async (request) => {
    request.principal = null;
    if (request.routeOptions.config.public) return;
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (!match?.[1]) throw unauthorized();
    const principal = await keys.authenticate(match[1]);
    if (!principal) throw unauthorized('The API key is invalid, inactive or revoked');
    request.principal = principal;
  };
}

/** onRequest hook: per-key fixed window; sets RateLimit-* headers on every answer. */
export function limitRequestRate(counter: WindowCounter, perMinute: number): onRequestAsyncHookHandler {
  const windowMs = 60_000;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.principal) return;
    const { count, resetAt } = await counter.hit(`key:${request.principal.apiKeyId}`, windowMs);
    const resetSeconds = Math.max(0, Math.ceil((resetAt - Date.now()) / 1000));
    reply.header('ratelimit-limit', perMinute);
    reply.header('ratelimit-remaining', Math.max(0, perMinute - count));
    reply.header('ratelimit-reset', resetSeconds);
    if (count > perMinute) {
      throw tooManyRequests(resetSeconds, `Rate limit of ${perMinute} requests per minute exceeded for this API key`);
    }
  };
}

const BUSINESS_PREFIXES = ['/api/integrations', '/api/branding'];

/** The plan policy: the API needs professional; integrations and branding, business. By path prefix, so unknown paths below them are gated too. */
export function requiredPlanFor(url: string): Plan {
  const path = url.split('?')[0]!;
  return BUSINESS_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ? 'business' : 'professional';
}

export const enforcePlanPolicy: onRequestAsyncHookHandler = async (request) => {
  if (request.principal) assertPlanAtLeast(request.principal.plan, requiredPlanFor(request.url));
};

/** The principal of an authenticated route (the auth hook guarantees it). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
