import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { assertSameOrigin, guardApi } from './core/auth.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling, routeNotFound } from './core/error-handler.js';
import { registerMetrics } from './core/metrics.js';
import { acceptMethodAliases } from './core/method-aliases.js';
import { withUniqueOperationIds } from './core/openapi.js';
import { refuseNulInJson, refuseNulInUrl, schemaCompilers } from './core/validation.js';
import { ownerSessionCookie } from './core/web/owner-session-cookie.js';
import { accountsRoutes } from './modules/accounts/accounts.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { oidcRoutes } from './modules/auth/oidc.routes.js';
import { membersRoutes } from './modules/members/members.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { sessionsRoutes } from './modules/sessions/sessions.routes.js';
import { twoFactorRoutes } from './modules/two-factor/two-factor.routes.js';
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.js';
import { downloadsRoutes } from './modules/downloads/downloads.routes.js';
import { linksRoutes } from './modules/links/links.routes.js';
import { documentsRoutes } from './modules/documents/documents.routes.js';
import { CONVERSION_OFF } from './infra/convert/locate-soffice.js';
import { uploadRoutes } from './modules/upload/upload.routes.js';
import { accessRequestsRoutes } from './modules/access-requests/access-requests.routes.js';
import { brandingAssetRoutes, brandingRoutes } from './modules/branding/branding.routes.js';
import { sharingRoutes } from './modules/sharing/sharing.routes.js';
import { portalsRoutes } from './modules/portals/portals.routes.js';
import { templatesRoutes } from './modules/templates/templates.routes.js';
import { blockListRoutes } from './modules/block-list/block-list.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { viewAlertsRoutes } from './modules/view-alerts/view-alerts.routes.js';
import { agreementsRoutes } from './modules/agreements/agreements.routes.js';
import { paymentsRoutes } from './modules/payments/payments.routes.js';
import { stripePagesRoutes } from './viewer/stripe-pages.routes.js';
import { integrationsRoutes } from './modules/integrations/integrations.routes.js';
import { analyticsRoutes } from './modules/analytics/analytics.routes.js';
import { registerViewerAssets } from './viewer/assets.js';
import { registerOwnerPagesAssets } from './dashboard/assets.js';
import { registerDashboardAssets } from './dashboard/app-shell.js';
import { ownerPagesRoutes } from './dashboard/owner-pages.routes.js';
import { viewerRoutes } from './viewer/viewer.routes.js';
import { portalRoutes } from './viewer/portal.routes.js';
import type { Config } from './config.js';
import type { Runtime } from './runtime.js';
import { derivedKey } from './infra/crypto/tokens.js';
import { capConnectionsPerClient } from './infra/http/client-connections.js';

const API_REFERENCE_POLICY =
  "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; form-action 'none'; " +
  "img-src 'self' data:; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'";

/**
 * `TRUST_PROXY` as Fastify takes it. A number of proxies trusts that many hops from our socket
 * (Fastify itself refuses plain hop counts, since it cannot tell whether a proxy is really there;
 * the operator who sets it says there is).
 */
function proxiesTrusted(trust: Config['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/** The whole HTTP application over a runtime. Nothing listens until the caller says so. */
export async function buildApp(runtime: Runtime): Promise<FastifyInstance> {
  const { config, services } = runtime;
  const app = Fastify({
    loggerInstance: runtime.log,
    trustProxy: proxiesTrusted(config.trustProxy),
    // While it stops, a request that still arrives on an open connection is served, not refused.
    return503OnClosing: false,
    // Fastify's defaults bound neither: a client could hold a connection for ever by sending a
    // request's body one byte at a time, or none. Node checks the request timeout on an interval,
    // here a tenth of the allowance, so a request is cut soon after its time rather than 30 s on;
    // and only while the headers' own timeout is no longer than it (Node's default is 60 s).
    connectionTimeout: config.idleTimeoutSeconds * 1000,
    requestTimeout: config.requestTimeoutSeconds * 1000,
    http: {
      connectionsCheckingInterval: Math.min(30_000, config.requestTimeoutSeconds * 100),
      headersTimeout: Math.min(60_000, config.requestTimeoutSeconds * 1000),
    },
    frameworkErrors,
    clientErrorHandler,
    schemaController: schemaCompilers,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Behind a proxy every connection comes from it, so the cap is the proxy's to keep.
  if (config.maxConnectionsPerClient > 0 && config.trustProxy === false) {
    capConnectionsPerClient(app.server, config.maxConnectionsPerClient, (network) =>
      app.log.warn({ network, limit: config.maxConnectionsPerClient }, 'connections refused: one client is over MAX_CONNECTIONS_PER_CLIENT'),
    );
  }

  app.decorateRequest('principal', null);
  app.removeContentTypeParser('application/json');
  refuseNulInJson(app);
  refuseNulInUrl(app);
  registerErrorHandling(app);
  if (config.metricsToken && runtime.metrics) registerMetrics(app, config.metricsToken, runtime.metrics);
  // Nothing we serve is meant to be sniffed into another type (uploaded HTML stays inert). The
  // API's answers (link lists, visitors' addresses, audit entries) are kept out of browser and
  // proxy caches, on disk or shared, unless a route says how its answer may be cached.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if (request.routeOptions.url?.startsWith('/api/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    // Shutting down: this answer is the connection's last (src/shutdown.ts). So is one given before
    // its request's body arrived (a refused upload): Node would otherwise keep reading the rest,
    // and a client sending it a byte at a time would keep the connection for as long as it liked.
    if (runtime.readiness.closing || !request.raw.complete) reply.header('connection', 'close');
    done(null, payload);
  });

  // Cookies are parsed only where visitors are (the /v and /p pages, checkout): the rest of the
  // API skips the cookie hooks. Visit cookies are signed with a key derived from the master key.
  const sessionCookie = ownerSessionCookie(config.publicUrl);
  const publicOrigin = new URL(config.publicUrl).origin;
  const visitCookies = { secret: derivedKey(runtime.masterKey, 'linkvault visit cookies').toString('base64') };

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'linkvault API',
        version: '1.0.0',
        description: 'Share files through viewer links.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'lvk_… API key' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: sessionCookie.name,
            description: 'A signed-in person (POST /api/auth/sign-in); changes also need the X-CSRF-Token header from GET /api/me',
          },
        },
      },
      security: [{ apiKey: [] }, { session: [] }],
    },
    transformObject: (documentObject) =>
      'openapiObject' in documentObject ? withUniqueOperationIds(documentObject.openapiObject) : documentObject.swaggerObject,
  });
  // The API reference runs on our origin, beside /app: as strict a policy as Swagger UI allows (its
  // style attributes need inline styles; no inline script, no framing, no other origin).
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: API_REFERENCE_POLICY });
  app.get('/api/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());

  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (runtime.readiness.draining) return reply.code(503).send({ error: 'shutting down' });
    try {
      await runtime.database.ping();
      // Still ready: every request is served, only the rate limits are per replica for now.
      const degraded = config.redisUrl && runtime.counter.sharing === 'per-process' ? ['redis'] : [];
      // Ready too: Office files are stored and offered for download, but not shown as pages.
      const missing = config.sofficePath !== CONVERSION_OFF && !(await runtime.converter.available()) ? ['converter'] : [];
      return { ok: true, ...(degraded.length > 0 && { degraded }), ...(missing.length > 0 && { missing }) };
    } catch {
      return reply.code(503).send({ error: 'database unreachable' });
    }
  });

  await app.register(
    async (api) => {
      api.addHook('onRoute', acceptMethodAliases);
      api.addHook(
        'onRequest',
        guardApi({
          keys: services.apiKeys,
          sessions: services.sessions,
          sessionCookie: sessionCookie.name,
          publicOrigin,
          counter: runtime.counter,
          perMinute: config.rateLimitPerMinute,
          require2fa: config.require2fa,
        }),
      );
      await api.register(authRoutes, {
        auth: services.auth,
        cookie: sessionCookie,
        publicOrigin,
        isAccountDomain: services.branding.isAccountDomain,
      });
      await api.register(sessionsRoutes, { prefix: '/sessions', sessions: services.sessions });
      await api.register(twoFactorRoutes, { prefix: '/me/two-factor', twoFactor: services.twoFactor, cookie: sessionCookie });
      await api.register(membersRoutes, { members: services.members, invitations: services.invitations });
      await api.register(accountsRoutes, { accounts: services.accounts, closure: services.accountClosure });
      await api.register(auditRoutes, { audit: services.audit });
      await api.register(apiKeysRoutes, { prefix: '/api-keys', apiKeys: services.apiKeys });
      // Multipart parsing (and its per-request hooks) only where files are sent: uploads, new versions, logos.
      await api.register(async (fileRoutes) => {
        await fileRoutes.register(multipart, {
          // One byte over the limit reaches the intake, which refuses it with a 413 on the spot.
          limits: { fileSize: runtime.intake.maxBytes + 1, files: 1, fields: 50, fieldSize: 64 * 1024, parts: 60 },
        });
        // An answer sent before the whole body was read (a refused or failed upload): the rest is
        // read and dropped, as Node does for a body no one touched, so a client still sending
        // gets its answer instead of waiting on a connection that no longer reads.
        fileRoutes.addHook('onResponse', (request, _reply, done) => {
          if (!request.raw.complete && !request.raw.destroyed) request.raw.unpipe().resume();
          done();
        });
        await fileRoutes.register(uploadRoutes, { prefix: '/upload', uploads: services.uploads, intake: runtime.intake });
        await fileRoutes.register(linksRoutes, { prefix: '/links', links: services.links, uploads: services.uploads, intake: runtime.intake });
        await fileRoutes.register(brandingRoutes, { prefix: '/branding', branding: services.branding });
      });
      await api.register(downloadsRoutes, {
        prefix: '/links',
        downloads: services.downloads,
        counter: runtime.counter,
      });
      await api.register(accessRequestsRoutes, { prefix: '/links', accessRequests: services.accessRequests });
      await api.register(sharingRoutes, { prefix: '/links', sharing: services.sharing });
      await api.register(portalsRoutes, { prefix: '/client-portals', portals: services.portals });
      await api.register(templatesRoutes, { prefix: '/templates', templates: services.templates });
      await api.register(blockListRoutes, { prefix: '/block-list', blockList: services.blockList });
      await api.register(webhooksRoutes, { prefix: '/webhooks', webhooks: services.webhooks });
      await api.register(viewAlertsRoutes, { prefix: '/view-alerts', viewAlerts: services.viewAlerts });
      await api.register(agreementsRoutes, { agreements: services.agreements });
      await api.register(documentsRoutes, { pages: services.pages });
      await api.register(async (payments) => {
        await payments.register(cookie, visitCookies); // checkout-download reads the visit cookie
        await payments.register(paymentsRoutes, {
          prefix: '/stripe',
          connect: services.stripeConnect,
          checkout: services.checkout,
          webhook: services.stripeWebhook,
        });
      });
      await api.register(integrationsRoutes, { prefix: '/integrations', integrations: services.integrations });
      await api.register(analyticsRoutes, { analytics: services.analytics });
      // Unknown /api paths still pass the key and plan hooks: no route is revealed to a stranger.
      api.setNotFoundHandler(routeNotFound);
    },
    { prefix: '/api' },
  );

  await app.register(brandingAssetRoutes, { branding: services.branding });
  await app.register(stripePagesRoutes, {
    prefix: '/stripe',
    connect: services.stripeConnect,
    brandFor: services.branding.brandFor,
    paymentsConfigured: config.stripeSecretKey !== undefined,
  });
  await registerViewerAssets(app);
  // Sign-in, setup, invitations, resets and /app: pages whose forms call the API above.
  await registerOwnerPagesAssets(app);
  await registerDashboardAssets(app);
  await app.register(ownerPagesRoutes, {
    auth: services.auth,
    sessions: services.sessions,
    brandFor: services.branding.brandFor,
    accountForHost: services.branding.accountForDomain,
    isAccountDomain: services.branding.isAccountDomain,
    publicUrl: config.publicUrl,
    sessionCookie: sessionCookie.name,
    signup: config.signup,
    singleSignOn: config.oidc !== undefined,
  });
  // OpenID Connect: browser redirects, not JSON API (404 when OIDC_ISSUER is unset).
  await app.register(oidcRoutes, { oidc: services.oidc, cookie: sessionCookie });
  await app.register(async (visitorPages) => {
    await visitorPages.register(cookie, visitCookies);
    // Gate forms, checkouts and page beacons change what a visit holds: a form posted from another site
    // would begin a visit in the victim's browser under an address the attacker chose (into the
    // watermark and the owner's analytics). Only our own pages post them.
    // An account's domain that its plan no longer serves sends its visitors to PUBLIC_URL: answered
    // here, it would serve every account's links and portals, and set their cookies, on a name
    // whose DNS that account still controls.
    visitorPages.addHook('onRequest', async (request, reply) => {
      if (await services.branding.isRestingDomain(request.hostname)) return reply.redirect(`${config.publicUrl}${request.url}`, 308);
      if (request.method !== 'GET' && request.method !== 'HEAD') assertSameOrigin(request, publicOrigin);
    });
    await visitorPages.register(portalRoutes, {
      prefix: '/p',
      portals: services.portalAccess,
      brandFor: services.branding.brandFor,
      accountForHost: services.branding.accountForDomain,
      publicUrl: config.publicUrl,
      clock: runtime.clock,
    });
    await visitorPages.register(viewerRoutes, {
      prefix: '/v',
      visits: services.visits,
      documents: services.documents,
      pages: services.pages,
      brandFor: services.branding.brandFor,
      accountForHost: services.branding.accountForDomain,
      purchases: services.checkout,
      downloads: services.downloads,
      counter: runtime.counter,
      previewImageOf: services.links.previewImageOf,
      pageLookFor: services.branding.pageLookFor,
      publicUrl: config.publicUrl,
      clock: runtime.clock,
    });
  });

  return app;
}
