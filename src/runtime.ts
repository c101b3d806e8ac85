import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Config } from './config.js';
import { memoryWindowCounter, redisWindowCounter, type WindowCounter } from './core/rate-limit.js';
import { openDatabase, type DatabaseHandle } from './db/kysely.js';
import type { Clock } from './db/executor.js';
import { loadMasterKey } from './infra/crypto/master-key.js';
import { createMailer, transportSettingsFromUrl } from './infra/mail/index.js';
import { createSafeHttpClient } from './infra/http/safe-fetch.js';
import { createBlobStore } from './infra/storage/index.js';
import { createAccessRequestsService } from './modules/access-requests/access-requests.service.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { countView, createAnalyticsService } from './modules/analytics/analytics.service.js';
import { createBrandingService } from './modules/branding/branding.service.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';
import { createKeyUsage } from './modules/api-keys/key-usage.js';
import { createDownloadsService } from './modules/downloads/downloads.service.js';
import { createEventDispatcher } from './modules/events/event-dispatcher.js';
import { createEventsService } from './modules/events/events.service.js';
import { createFileIntake } from './modules/files/file-intake.js';
import { createFileReader } from './modules/files/file-reader.js';
import { createChatDelivery } from './modules/integrations/chat-delivery.js';
import { createIntegrationsService } from './modules/integrations/integrations.service.js';
import { createExpiryNotices } from './modules/links/expiry-notices.js';
import { createExpiredBlobSweeper } from './modules/links/expired-blob-sweeper.js';
import { createLapsedAccessSweeper } from './modules/visits/lapsed-access-sweeper.js';
import { createLinksService } from './modules/links/links.service.js';
import { createNotifications } from './modules/notifications/notifications.service.js';
import { createCheckoutService } from './modules/payments/checkout.service.js';
import { createStripeConnect } from './modules/payments/connect.service.js';
import { createStripeClient } from './modules/payments/stripe-client.js';
import { createStripeWebhook } from './modules/payments/stripe-webhook.service.js';
import { createPortalAccessService } from './modules/portals/portal-access.service.js';
import { createPortalsService } from './modules/portals/portals.service.js';
import { createSharingService } from './modules/sharing/sharing.service.js';
import { createTemplatesService } from './modules/templates/templates.service.js';
import { createUploadService } from './modules/upload/upload.service.js';
import { createOtpService } from './modules/visits/otp.service.js';
import { createVisitsService } from './modules/visits/visits.service.js';

/**
 * Everything the app runs on, built once from the configuration: connections first,
 * then the services over them. buildApp() takes this; the CLI uses the services directly.
 */
export async function createRuntime(config: Config, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? Date.now;
  const log: FastifyBaseLogger = pino({
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
  });
  const database: DatabaseHandle = openDatabase(config.database);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 }) : null;
  try {
    await database.migrate();
    if (redis) await redis.connect();
  } catch (error) {
    await database.close();
    redis?.disconnect();
    throw error;
  }
  const masterKey = loadMasterKey(config.masterKey, config.dataDir);
  const counter: WindowCounter = redis ? redisWindowCounter(redis, config.redisPrefix) : memoryWindowCounter(clock);

  const blobs = createBlobStore(config.storage);

  const db = database.db;
  const keyUsage = createKeyUsage({ db, onError: (err) => log.error({ err }, 'could not write API key usage') });
  const apiKeys = createApiKeysService({ db, precompile: database.precompile, clock, usage: keyUsage });
  const accounts = createAccountsService({ db, clock, apiKeys });
  const intake = createFileIntake({ blobs, masterKey });
  const reader = createFileReader({ blobs, masterKey });
  const branding = createBrandingService({ db, clock, blobs, masterKey, publicUrl: config.publicUrl, systemFrom: config.mailFrom });
  const links = createLinksService({ db, clock, blobs, viewerBase: branding.viewerBase });
  const stripe = createStripeClient(config);
  const stripeConnect = createStripeConnect({ db, clock, stripe, publicUrl: config.publicUrl });
  const templates = createTemplatesService({ db, clock, payments: stripeConnect });
  const uploads = createUploadService({ links, intake, templates, payments: stripeConnect });
  const events = createEventsService({ clock, projections: [countView] });
  const downloads = createDownloadsService({ db, clock, reader, links, events });
  const mailer = createMailer({
    db,
    clock,
    log,
    systemTransport: config.smtpUrl ? transportSettingsFromUrl(config.smtpUrl, config.mailFrom) : null,
    accountTransport: branding.smtpFor,
  });
  const notifications = createNotifications({ db, mailer, viewerUrlFor: links.viewerUrlFor, mailBrandFor: branding.mailBrandFor });
  const otp = createOtpService({ db, clock, counter });
  const visits = createVisitsService({ db, clock, counter, links, otp, notify: notifications, events });
  const accessRequests = createAccessRequestsService({ db, clock, links, notify: notifications, events });
  const sharing = createSharingService({ links, notify: notifications });
  const portals = createPortalsService({ db, clock, viewerBase: branding.viewerBase });
  const portalAccess = createPortalAccessService({ db, clock, otp, visits, notify: notifications });
  const checkout = createCheckoutService({
    db, clock, stripe, sellers: stripeConnect, visits, viewerBase: branding.viewerBase, platformFeePercent: config.platformFeePercent, events,
  });
  const stripeWebhook = createStripeWebhook({
    db, clock, stripe, webhookSecret: config.stripeWebhookSecret, publicUrl: config.publicUrl,
    links, downloads, sellers: stripeConnect, notify: notifications, events,
  });
  const integrations = createIntegrationsService({ db, clock, masterKey, allowPrivateWebhooks: config.allowPrivateWebhooks });
  const analytics = createAnalyticsService({ db, clock, links });
  const eventDispatcher = createEventDispatcher({
    db,
    clock,
    log,
    deliver: createChatDelivery({
      masterKey,
      http: createSafeHttpClient({ allowPrivateAddresses: config.allowPrivateWebhooks }),
      viewerUrlFor: links.viewerUrlFor,
    }),
    pollMs: config.eventPollMs,
    retryBaseMs: config.eventRetryBaseMs,
    maxAttempts: config.eventMaxAttempts,
  });
  const expiryNotices = createExpiryNotices({ db, clock, events, log });
  const blobSweeper = createExpiredBlobSweeper({ links, retentionDays: config.expiredRetentionDays, log });
  const accessSweeper = createLapsedAccessSweeper({ db, clock, log });

  return {
    config,
    clock,
    database,
    masterKey,
    counter,
    log,
    intake,
    reader,
    mailer,
    eventDispatcher,
    expiryNotices,
    accessSweeper,
    services: { apiKeys, accounts, branding, links, sharing, uploads, downloads, otp, visits, accessRequests, templates, portals, portalAccess, stripeConnect, checkout, stripeWebhook, events, integrations, analytics },
    /** Work that runs beside the requests (usage counts, mail, events, expiry); the CLI's one-shot commands skip it. */
    startBackgroundWork() {
      keyUsage.start();
      mailer.start();
      eventDispatcher.start();
      expiryNotices.start();
      blobSweeper.start();
      accessSweeper.start();
    },
    async close() {
      await keyUsage.stop();
      await mailer.stop();
      await expiryNotices.stop();
      await eventDispatcher.stop();
      await blobSweeper.stop();
      await accessSweeper.stop();
      await blobs.close();
      await counter.close();
      redis?.disconnect();
      await database.close();
    },
  };
}

export type Runtime = Awaited<ReturnType<typeof createRuntime>>;
