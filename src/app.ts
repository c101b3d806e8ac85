import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authenticateApiKey, enforcePlanPolicy, limitRequestRate } from './core/auth.js';
import { registerErrorHandling, routeNotFound } from './core/error-handler.js';
import { registerMetrics } from './core/metrics.js';
import { registerValidation } from './core/validation.js';
import { ErrorBody } from './core/schemas.js';
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.js';
import type { Runtime } from './runtime.js';

export interface BuildOptions {
  /** pino options or false; tests pass false to keep their output readable */
  logger?: FastifyServerOptions['logger'];
}

/** The whole HTTP application over a runtime. Nothing listens until the caller says so. */
export async function buildApp(runtime: Runtime, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config, services } = runtime;
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
    },
    trustProxy: config.trustProxy,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('principal', null);
  app.addSchema(ErrorBody);
  registerValidation(app);
  registerErrorHandling(app);
  registerMetrics(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'linkvault API', version: '1.0.0', description: 'Share files through viewer links.' },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'lvk_… API key' } } },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/api/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());

  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await runtime.database.ping();
      return { ok: true };
    } catch {
      return reply.code(503).send({ error: 'database unreachable' });
    }
  });

  await app.register(async (api) => {
    api.addHook('onRequest', authenticateApiKey(services.apiKeys));
    api.addHook('onRequest', limitRequestRate(runtime.counter, config.rateLimitPerMinute));
    api.addHook('onRequest', enforcePlanPolicy);
    await api.register(apiKeysRoutes, { prefix: '/api-keys', apiKeys: services.apiKeys });
    // Unknown /api paths still pass the key and plan hooks: no route is revealed to a stranger.
    api.setNotFoundHandler(routeNotFound);
  }, { prefix: '/api' });

  return app;
}
