import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Config } from './config.js';
import { octal, openToGroupOrOthers } from './db/owner-only.js';
import { promClient } from './core/metrics.js';
import { memoryWindowCounter, redisWindowCounter, type WindowCounter } from './core/rate-limit.js';
import { LOG_REDACTION, requestLogView } from './core/request-log.js';
import { openDatabase, type DatabaseHandle } from './db/kysely.js';
import { failureLevel, type Clock } from './db/executor.js';
import { holdsSealedData } from './db/inventory.js';
import { loadMasterKey } from './infra/crypto/master-key.js';
import { createTxtLookup } from './infra/dns/txt-lookup.js';
import { createJobRunner } from './infra/jobs/index.js';
import { createMailer, MAIL_JOB, transportSettingsFromUrl } from './infra/mail/index.js';
import { createSafeHttpClient } from './infra/http/safe-fetch.js';
import { createBlobStore } from './infra/storage/index.js';
import { createAccessRequestRecords, createAccessRequestsService } from './modules/access-requests/access-requests.service.js';
import { createAccountRecords } from './modules/accounts/account-records.js';
import { ACCOUNT_FILES_JOB, createAccountClosure } from './modules/accounts/account-closure.service.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { countDownload, countView, createAnalyticsService, linkTallies } from './modules/analytics/analytics.service.js';
import { createIdempotencyService } from './modules/idempotency/idempotency.service.js';
import { createBrandingService } from './modules/branding/branding.service.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';
import { createKeyUsage } from './modules/api-keys/key-usage.js';
import { createDocumentsService } from './modules/documents/documents.service.js';
import { createDownloadsService } from './modules/downloads/downloads.service.js';
import { createEventDispatcher, EVENT_DELIVERY_JOB } from './modules/events/event-dispatcher.js';
import { createEventsService } from './modules/events/events.service.js';
import { createFileIntake } from './modules/files/file-intake.js';
import { createFileReader } from './modules/files/file-reader.js';
import { createChatDelivery, createChatTest } from './modules/integrations/chat-delivery.js';
import { createIntegrationsService } from './modules/integrations/integrations.service.js';
import { createExpiryNotices } from './modules/links/expiry-notices.js';
import { createExpiredBlobSweeper } from './modules/links/expired-blob-sweeper.js';
import { createOrphanBlobSweeper } from './modules/files/orphan-blob-sweeper.js';
import { createLapsedAccessSweeper } from './modules/visits/lapsed-access-sweeper.js';
import { createLinkRecords, createLinksService } from './modules/links/links.service.js';
import { createNotifications } from './modules/notifications/notifications.service.js';
import { createMailRetention } from './modules/notifications/mail-retention.js';
import { createCheckoutService } from './modules/payments/checkout.service.js';
import { createStripeConnect } from './modules/payments/connect.service.js';
import { createStripeClient } from './modules/payments/stripe-client.js';
import { createStripeWebhook } from './modules/payments/stripe-webhook.service.js';
import { createPortalAccessService } from './modules/portals/portal-access.service.js';
import { createPortalsService } from './modules/portals/portals.service.js';
import { createSharingService } from './modules/sharing/sharing.service.js';
import { createBlockListService } from './modules/block-list/block-list.service.js';
import { createWebhookDelivery } from './modules/webhooks/webhook-delivery.js';
import { createWebhooksService, WEBHOOK_DELIVERY_JOB } from './modules/webhooks/webhooks.service.js';
import { createViewAlertsService } from './modules/view-alerts/view-alerts.service.js';
import { createAgreementPolicy, createAgreementsService } from './modules/agreements/agreements.service.js';
import { createTemplatesService } from './modules/templates/templates.service.js';
import { createUploadService } from './modules/upload/upload.service.js';
import { createAuditLog } from './modules/audit/audit.service.js';
import { createAuditRetention } from './modules/audit/audit-retention.js';
import { createRetentionSweep } from './core/retention-sweep.js';
import { createAuthService, SIGN_IN_MAIL_JOB } from './modules/auth/auth.service.js';
import { createSignInThrottle } from './modules/auth/sign-in-throttle.js';
import { createOidcService } from './modules/auth/oidc.service.js';
import { createInvitationsService } from './modules/members/invitations.service.js';
import { createMembersService } from './modules/members/members.service.js';
import { createSessionsService } from './modules/sessions/sessions.service.js';
import { createUsersService } from './modules/users/users.service.js';
import { createTwoFactorService } from './modules/two-factor/two-factor.service.js';
import { createOtpService } from './modules/visits/otp.service.js';
import { createVisitsService } from './modules/visits/visits.service.js';
import { createLinkDocuments, createPagesService } from './modules/documents/pages.service.js';
import { createRenditions, DOCUMENT_JOB } from './modules/documents/renditions.js';
import { createOfficeConverter } from './infra/convert/office-converter.js';
import { findSoffice } from './infra/convert/locate-soffice.js';

/**
 * DATA_DIR (the master key, the SQLite database) and a local blob folder (its folders are named
 * after links) are made owner-only; one an earlier release or the operator left open to group or
 * others is told, not changed: it may be a folder the operator shares on purpose.
 */
function warnOfOpenFolders(config: Config, log: FastifyBaseLogger): void {
  const folders = [config.dataDir, ...(config.storage.kind === 'local' ? [config.storage.dir] : [])];
  const open = openToGroupOrOthers(folders, 'folder');
  if (open.length === 0) return;
  log.warn(
    { folders: open.map(({ file, mode }) => ({ folder: file, mode: octal(mode) })) },
    'a data folder can be listed by group or others, who would learn link ids from it: chmod 700 it',
  );
}

/**
 * Everything the app runs on, built once from the configuration: connections first,
 * then the services over them. buildApp() takes this; the CLI uses the services directly.
 */
export async function createRuntime(config: Config, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? Date.now;
  const log: FastifyBaseLogger = pino({
    level: config.logLevel,
    redact: LOG_REDACTION,
    serializers: { req: requestLogView },
  });
  warnOfOpenFolders(config, log);
  const database: DatabaseHandle = openDatabase(config.database, {
    onConnectionLost: (err) => log.warn({ err }, 'the database closed an idle connection; the next query opens a new one'),
    log,
  });
  // Heavy clients load only when configured: ioredis here, the AWS SDK and Stripe below.
  // No offline queue and a command timeout: while Redis is away, a hit fails at once and is
  // counted in this process (redisWindowCounter), instead of waiting for the reconnection.
  const redis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, {
        lazyConnect: true,
        enableOfflineQueue: false,
        commandTimeout: 1000,
        maxRetriesPerRequest: 1,
      })
    : null;
  const counter: WindowCounter = redis ? redisWindowCounter(redis, config.redisPrefix, log, clock) : memoryWindowCounter(clock);
  try {
    await database.migrate();
  } catch (error) {
    await database.close();
    throw error;
  }
  // A Redis that is away at start is a degraded start, not a failed one: ioredis keeps trying.
  await redis?.connect().catch(() => undefined);
  const masterKey = await loadMasterKey(config.masterKey, config.dataDir, async () => !(await holdsSealedData(database.db)));

  const blobs = await createBlobStore(config.storage);

  const db = database.db;
  const keyUsage = createKeyUsage({ db, onError: (err) => log[failureLevel(err)]({ err }, 'could not write API key usage') });
  const accountRecords = createAccountRecords({ db });
  const audit = createAuditLog({ db, clock });
  const apiKeys = createApiKeysService({ db, precompile: database.precompile, clock, usage: keyUsage, accounts: accountRecords, audit });
  const accounts = createAccountsService({ db, clock, apiKeys, audit });
  const users = createUsersService({ db, clock });
  const sessions = createSessionsService({
    db,
    precompile: database.precompile,
    clock,
    masterKey,
    idleDays: config.sessionIdleDays,
    absoluteDays: config.sessionAbsoluteDays,
    log,
  });
  const intake = createFileIntake({ blobs, masterKey });
  const reader = createFileReader({ blobs, masterKey });
  const branding = createBrandingService({
    db,
    clock,
    blobs,
    masterKey,
    publicUrl: config.publicUrl,
    systemFrom: config.mailFrom,
    allowPrivateSmtp: config.allowPrivateSmtp,
    lookupTxt: createTxtLookup({ servers: config.dnsServers }),
    audit,
    accounts: accountRecords,
  });
  const stripe = await createStripeClient(config);
  const stripeConnect = createStripeConnect({ db, clock, stripe, publicUrl: config.publicUrl, masterKey, accounts: accountRecords, audit });
  const agreementPolicy = createAgreementPolicy(db);
  const idempotency = createIdempotencyService({ db, clock, log });
  const links = createLinksService({
    db,
    clock,
    blobs,
    viewerBase: branding.viewerBase,
    audit,
    payments: stripeConnect,
    agreements: agreementPolicy,
    documents: createLinkDocuments({ db, blobs }),
    idempotency,
    accounts: accountRecords,
    storageLimitBytes: config.accountStorageBytes,
  });
  const agreements = createAgreementsService({ db, clock, links, accounts: accountRecords, audit });
  const templates = createTemplatesService({ db, clock, payments: stripeConnect, agreements: agreementPolicy, idempotency });
  // What /metrics serves besides the HTTP series: the job runner's.
  const metrics = config.metricsToken ? new (promClient().Registry)() : undefined;
  // All background work that must not be lost (mail, event deliveries, documents) runs as jobs; kinds are registered as they are built.
  // At shutdown, jobs get the grace requests get; then they are aborted (a conversion ends LibreOffice) and due again.
  const jobs = createJobRunner({ db, clock, log, registry: metrics, stopTimeoutMs: config.shutdownGraceSeconds * 1000 });
  const converter = createOfficeConverter({
    // Without LibreOffice the converter reports itself unavailable and Office files stay downloads.
    sofficePath: findSoffice(config.sofficePath, process.env.PATH) ?? 'soffice-not-installed',
    timeoutMs: config.convertTimeoutSeconds * 1000,
    memoryLimitMb: config.convertMemoryMb,
  });
  const renditions = createRenditions({
    db,
    clock,
    intake,
    reader,
    blobs,
    converter,
    jobs,
    links,
    convertTimeoutMs: config.convertTimeoutSeconds * 1000,
    pageTimeoutMs: config.pageDrawTimeoutSeconds * 1000,
    maxPages: config.maxDocumentPages,
    imagesBaseBytes: config.documentImagesBaseMb * 1024 * 1024,
    concurrency: config.jobConcurrency,
  });
  jobs.register(DOCUMENT_JOB, renditions.job);
  const uploads = createUploadService({ links, intake, templates, payments: stripeConnect, idempotency, renditions });
  const chatHttp = createSafeHttpClient({ allowPrivateAddresses: config.allowPrivateWebhooks });
  const integrations = createIntegrationsService({
    db,
    clock,
    masterKey,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    accounts: accountRecords,
    audit,
    sendTestMessage: createChatTest({ masterKey, http: chatHttp }),
  });
  const webhooks = createWebhooksService({
    db,
    clock,
    masterKey,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    jobs,
    accounts: accountRecords,
    audit,
  });
  const events = createEventsService({ db, clock, jobs, integrations, projections: [countView, countDownload], subscribers: [webhooks.subscriber] });
  const mailer = createMailer({
    db,
    clock,
    log,
    masterKey,
    jobs,
    systemTransport: config.smtpUrl ? transportSettingsFromUrl(config.smtpUrl, config.mailFrom) : null,
    accountTransport: branding.smtpFor,
    allowPrivateAccountSmtp: config.allowPrivateSmtp,
  });
  jobs.register(MAIL_JOB, mailer.job);
  const notifications = createNotifications({
    db,
    clock,
    publicUrl: config.publicUrl,
    mailer,
    viewerUrlFor: links.viewerUrlFor,
    mailBrandFor: branding.mailBrandFor,
    accounts: accountRecords,
  });
  const invitations = createInvitationsService({ db, clock, publicUrl: config.publicUrl, audit, notify: notifications, apiKeys });
  const members = createMembersService({ db, clock, audit, accounts: accountRecords, sessions, apiKeys, invitations });
  const signInThrottle = createSignInThrottle(counter);
  const twoFactor = createTwoFactorService({ db, clock, masterKey, users, members, sessions, apiKeys, audit, throttle: signInThrottle });
  const auth = createAuthService({
    db,
    clock,
    publicUrl: config.publicUrl,
    defaultPlan: config.defaultPlan,
    signup: config.signup,
    users,
    members,
    invitations,
    sessions,
    accounts: { ...accountRecords, open: accounts.open },
    audit,
    throttle: signInThrottle,
    counter,
    mail: notifications,
    secondFactor: twoFactor,
    jobs,
  });
  jobs.register(SIGN_IN_MAIL_JOB, auth.linkMailJob);
  const accountClosure = createAccountClosure({ db, auth, members, users, sessions, apiKeys, links, branding, audit, jobs, mail: notifications });
  jobs.register(ACCOUNT_FILES_JOB, accountClosure.job);
  // openid-client is loaded only when single sign-on is configured.
  const oidc = config.oidc
    ? createOidcService({
        db,
        clock,
        masterKey,
        publicUrl: config.publicUrl,
        settings: config.oidc,
        openid: await import('openid-client'),
        auth,
        users,
        members,
        invitations,
        accounts: accountRecords,
        audit,
      })
    : undefined;
  const otp = createOtpService({ db, clock, counter });
  const accessRequestRecords = createAccessRequestRecords({ db, clock });
  const blockList = createBlockListService({ db, clock, audit });
  const viewAlerts = createViewAlertsService({ db, clock, users, members, accounts: accountRecords, mail: notifications, audit, log });
  const visits = createVisitsService({
    db,
    clock,
    counter,
    links,
    otp,
    notify: notifications,
    events,
    accessRequests: accessRequestRecords,
    blockList,
    viewAlerts,
    agreements,
    tallies: linkTallies,
    viewsPerClientPerMinute: config.viewsPerClientPerMinute,
  });
  const documents = createDocumentsService({ db, reader, clock, visits, links, events, maxPages: config.maxDocumentPages });
  const pages = createPagesService({ db, reader, visits, links, renditions, registry: metrics });
  const accessRequests = createAccessRequestsService({ db, clock, links, notify: notifications, events, audit });
  const sharing = createSharingService({ links, notify: notifications, audit });
  const portals = createPortalsService({ db, clock, viewerBase: branding.viewerBase, links, idempotency });
  const portalAccess = createPortalAccessService({ db, clock, otp, visits, blockList, notify: notifications });
  const checkout = createCheckoutService({
    db,
    clock,
    counter,
    stripe,
    sellers: stripeConnect,
    visits,
    viewerBase: branding.viewerBase,
    platformFeePercent: config.platformFeePercent,
    events,
  });
  const downloads = createDownloadsService({ db, clock, reader, links, events, purchases: checkout });
  const stripeWebhook = createStripeWebhook({
    db,
    clock,
    stripe,
    webhookSecret: config.stripeWebhookSecret,
    publicUrl: config.publicUrl,
    links,
    downloads,
    sellers: stripeConnect,
    notify: notifications,
    viewAlerts,
    events,
    log,
  });
  const analytics = createAnalyticsService({ db, clock, links, accessRequests: accessRequestRecords });
  jobs.register(
    EVENT_DELIVERY_JOB,
    createEventDispatcher({
      db,
      clock,
      log,
      integrations,
      deliver: createChatDelivery({
        masterKey,
        http: chatHttp,
        viewerUrlFor: links.viewerUrlFor,
      }),
      pollMs: config.eventPollMs,
      retryBaseMs: config.eventRetryBaseMs,
      maxAttempts: config.eventMaxAttempts,
      concurrency: config.eventConcurrency,
    }),
  );
  jobs.register(
    WEBHOOK_DELIVERY_JOB,
    createWebhookDelivery({
      db,
      clock,
      log,
      masterKey,
      http: createSafeHttpClient({
        allowPrivateAddresses: config.allowPrivateWebhooks,
        ca: config.webhookCa,
      }),
      retryBaseMs: config.eventRetryBaseMs,
      maxAttempts: config.eventMaxAttempts,
    }),
  );
  const expiryNotices = createExpiryNotices({ db, clock, events, log });
  const blobSweeper = createExpiredBlobSweeper({ links, retentionDays: config.expiredRetentionDays, log });
  const orphanSweeper = createOrphanBlobSweeper({
    blobs,
    owners: [
      { prefix: 'links/', storedKeys: createLinkRecords({ db }).storedBlobKeys },
      { prefix: 'branding/', storedKeys: branding.storedLogoKeys },
      renditions.blobOwner,
    ],
    log,
  });
  const accessSweeper = createLapsedAccessSweeper({ db, clock, log, portalSessions: portalAccess });
  const auditRetention = createAuditRetention({ audit, clock, retentionDays: config.auditRetentionDays, log });
  const mailRetention = createMailRetention({ mailer, clock, retentionDays: config.mailRetentionDays, log });
  // A token's row stays until it expires (it may be used until then), then goes: zero days past its expiry.
  const tokenSweeps = {
    signIn: createRetentionSweep({ rows: 'expired sign-in tokens', deleteBefore: auth.deleteTokensExpiredBefore, clock, retentionDays: 0, log }),
    download: createRetentionSweep({
      rows: 'expired download tokens',
      deleteBefore: downloads.deleteTokensExpiredBefore,
      clock,
      retentionDays: 0,
      log,
    }),
  };
  const eventRetention = [
    createRetentionSweep({ rows: 'events', deleteBefore: events.deleteBefore, clock, retentionDays: config.eventRetentionDays, log }),
    createRetentionSweep({ rows: 'page reads', deleteBefore: visits.deletePageViewsBefore, clock, retentionDays: config.eventRetentionDays, log }),
    createRetentionSweep({
      rows: 'webhook deliveries',
      deleteBefore: webhooks.deleteDeliveriesBefore,
      clock,
      retentionDays: config.eventRetentionDays,
      log,
    }),
  ];

  return {
    config,
    clock,
    /** Set once shutdown begins: /readyz answers 503 so a balancer stops sending new work. */
    readiness: { draining: false, closing: false },
    database,
    masterKey,
    counter,
    log,
    intake,
    reader,
    converter,
    metrics,
    jobs,
    mailer,
    expiryNotices,
    accessSweeper,
    auditRetention,
    mailRetention,
    eventRetention,
    tokenSweeps,
    orphanSweeper,
    services: {
      apiKeys,
      accounts,
      accountClosure,
      audit,
      users,
      sessions,
      members,
      invitations,
      auth,
      twoFactor,
      oidc,
      branding,
      links,
      sharing,
      uploads,
      idempotency,
      downloads,
      otp,
      visits,
      documents,
      pages,
      accessRequests,
      templates,
      blockList,
      agreements,
      viewAlerts,
      webhooks,
      portals,
      portalAccess,
      stripeConnect,
      checkout,
      stripeWebhook,
      events,
      integrations,
      analytics,
    },
    /** Work that runs beside the requests (usage counts, mail, events, expiry); the CLI's one-shot commands skip it. */
    startBackgroundWork() {
      keyUsage.start();
      jobs.start();
      expiryNotices.start();
      blobSweeper.start();
      orphanSweeper.start();
      accessSweeper.start();
      viewAlerts.start();
      auditRetention.start();
      mailRetention.start();
      for (const sweep of eventRetention) sweep.start();
      for (const sweep of Object.values(tokenSweeps)) sweep.start();
      idempotency.start();
      sessions.startSweeper();
    },
    async close() {
      // Its last write failing (the database gone) must not leave the rest running: the counts of a second are lost, said in the log.
      await keyUsage.stop().catch((err: unknown) => log.error({ err }, 'could not write the last API key usage'));
      await expiryNotices.stop();
      await jobs.stop();
      await renditions.stop();
      mailer.close();
      await blobSweeper.stop();
      await orphanSweeper.stop();
      await accessSweeper.stop();
      await viewAlerts.stop();
      await auditRetention.stop();
      await mailRetention.stop();
      for (const sweep of eventRetention) await sweep.stop();
      for (const sweep of Object.values(tokenSweeps)) await sweep.stop();
      await idempotency.stop();
      await sessions.stopSweeper();
      await blobs.close();
      await counter.close();
      redis?.disconnect();
      await database.close();
    },
  };
}

export type Runtime = Awaited<ReturnType<typeof createRuntime>>;
