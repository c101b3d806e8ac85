import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Config } from './config.js';
import { memoryWindowCounter, redisWindowCounter, type WindowCounter } from './core/rate-limit.js';
import { openDatabase, type DatabaseHandle } from './db/kysely.js';
import type { Clock } from './db/executor.js';
import { loadMasterKey } from './infra/crypto/master-key.js';
import { createMailer, transportSettingsFromUrl } from './infra/mail/index.js';
import { createBlobStore } from './infra/storage/index.js';
import { createAccessRequestsService } from './modules/access-requests/access-requests.service.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { createBrandingService } from './modules/branding/branding.service.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';
import { createDownloadsService } from './modules/downloads/downloads.service.js';
import { createFileIntake } from './modules/files/file-intake.js';
import { createFileReader } from './modules/files/file-reader.js';
import { createLinksService } from './modules/links/links.service.js';
import { createNotifications } from './modules/notifications/notifications.service.js';
import { createSharingService } from './modules/sharing/sharing.service.js';
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
  const apiKeys = createApiKeysService({ db, clock });
  const accounts = createAccountsService({ db, clock, apiKeys });
  const intake = createFileIntake({ blobs, masterKey });
  const reader = createFileReader({ blobs, masterKey });
  const branding = createBrandingService({ db, clock, blobs, masterKey, publicUrl: config.publicUrl, systemFrom: config.mailFrom });
  const links = createLinksService({ db, clock, blobs, viewerBase: branding.viewerBase });
  const uploads = createUploadService({ links, intake, paymentsConfigured: config.stripeSecretKey !== undefined });
  const downloads = createDownloadsService({ db, clock, reader, links });
  const mailer = createMailer({
    db,
    clock,
    log,
    systemTransport: config.smtpUrl ? transportSettingsFromUrl(config.smtpUrl, config.mailFrom) : null,
    accountTransport: branding.smtpFor,
  });
  const notifications = createNotifications({ db, mailer, viewerUrlFor: links.viewerUrlFor });
  const otp = createOtpService({ db, clock, counter });
  const visits = createVisitsService({ db, clock, counter, links, otp, notify: notifications });
  const accessRequests = createAccessRequestsService({ db, clock, links, notify: notifications });
  const sharing = createSharingService({ links, notify: notifications });
  // Services of later modules: construct them above this comment and list them in `services`.

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
    services: { apiKeys, accounts, branding, links, sharing, uploads, downloads, otp, visits, accessRequests },
    /** Work that runs beside the requests (mail delivery); the CLI's one-shot commands skip it. */
    startBackgroundWork() {
      mailer.start();
    },
    async close() {
      await mailer.stop();
      await blobs.close();
      await counter.close();
      redis?.disconnect();
      await database.close();
    },
  };
}

export type Runtime = Awaited<ReturnType<typeof createRuntime>>;
