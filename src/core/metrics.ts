import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { safeEqual } from '../infra/crypto/tokens.js';
import { loadOnFirstUse } from '../infra/load-on-first-use.js';
import { routeNotFound } from './error-handler.js';

/** prom-client (and OpenTelemetry's API under it) loads only when /metrics exists. */
export const promClient = loadOnFirstUse<typeof import('prom-client')>('prom-client');

/**
 * Prometheus text at /metrics: requests by route and status and their latency, in one
 * histogram (its `_count` series is the request counter; a second metric would double the
 * per-request cost for no new information), on `registry` beside what others put there (the
 * job runner's series). Only a scraper holding `token` may read them; the runtime calls this
 * only when METRICS_TOKEN is set: without it the endpoint does not exist.
 */
export function registerMetrics(app: FastifyInstance, token: string, registry: Registry): void {
  const { Histogram, collectDefaultMetrics } = promClient();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids and tokens must not become label values.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  // Any refusal looks like an absent route: a stranger learns nothing about the scraper.
  const isScraper = (request: FastifyRequest) => safeEqual(request.headers.authorization ?? '', `Bearer ${token}`);

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!isScraper(request)) return routeNotFound(request, reply);
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
