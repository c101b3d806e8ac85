import type { Migration, MigrationProvider } from 'kysely/migration';
import * as foundation from './0001-foundation.js';
import * as links from './0002-links.js';
import * as visitors from './0003-visitors.js';
import * as branding from './0004-branding.js';
import * as events from './0005-events.js';
import * as portalsAndTemplates from './0006-portals-templates.js';
import * as payments from './0007-payments.js';
import * as analytics from './0008-analytics.js';
import * as lapsedAccess from './0009-lapsed-access.js';
import * as verifiedDomains from './0010-verified-domains.js';
import * as purchaseTokens from './0011-purchase-tokens.js';
import * as jobs from './0012-jobs.js';
import * as boundedLists from './0013-bounded-lists.js';
import * as idempotentRequests from './0014-idempotent-requests.js';
import * as people from './0015-people.js';
import * as linkLifetimes from './0016-link-lifetimes.js';
import * as visitorEmailRules from './0017-visitor-email-rules.js';
import * as webhooks from './0018-webhooks.js';
import * as visitorDownloads from './0019-visitor-downloads.js';
import * as viewAlerts from './0020-view-alerts.js';
import * as linkPreviews from './0021-link-previews.js';
import * as agreements from './0022-agreements.js';
import * as documents from './0023-documents.js';
import * as linkListOrders from './0024-link-list-orders.js';
import * as roomList from './0025-room-list.js';
import * as pageStampBase from './0026-page-stamp-base.js';
import * as linkViewTallies from './0027-link-view-tallies.js';
import * as keyMakers from './0028-key-makers.js';
import * as roomVisits from './0029-room-visits.js';
import * as reportedSeconds from './0030-reported-seconds.js';
import * as mailOutboxWithoutMessages from './0031-mail-outbox-without-messages.js';
import * as hashedCheckoutSessions from './0032-hashed-checkout-sessions.js';
import * as unverifiedViewAlerts from './0033-unverified-view-alerts.js';
import * as unverifiedAddresses from './0034-unverified-addresses.js';
import * as fairJobs from './0035-fair-jobs.js';
import * as passwordStamps from './0036-password-stamps.js';
import * as purgedRenditions from './0037-purged-renditions.js';
import * as fulfilledPurchases from './0038-fulfilled-purchases.js';
import * as totpLastStep from './0039-totp-last-step.js';
import * as purchasePool from './0040-purchase-pool.js';
import * as portalVisits from './0041-portal-visits.js';
import * as downloadTokenExpiry from './0042-download-token-expiry.js';
import * as viewAlertsMuted from './0043-view-alerts-muted.js';

/** Every migration, in order. Listed statically so they run the same from tsx, tests and a bundle. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-links': links,
  '0003-visitors': visitors,
  '0004-branding': branding,
  '0005-events': events,
  '0006-portals-templates': portalsAndTemplates,
  '0007-payments': payments,
  '0008-analytics': analytics,
  '0009-lapsed-access': lapsedAccess,
  '0010-verified-domains': verifiedDomains,
  '0011-purchase-tokens': purchaseTokens,
  '0012-jobs': jobs,
  '0013-bounded-lists': boundedLists,
  '0014-idempotent-requests': idempotentRequests,
  '0015-people': people,
  '0016-link-lifetimes': linkLifetimes,
  '0017-visitor-email-rules': visitorEmailRules,
  '0018-webhooks': webhooks,
  '0019-visitor-downloads': visitorDownloads,
  '0020-view-alerts': viewAlerts,
  '0021-link-previews': linkPreviews,
  '0022-agreements': agreements,
  '0023-documents': documents,
  '0024-link-list-orders': linkListOrders,
  '0025-room-list': roomList,
  '0026-page-stamp-base': pageStampBase,
  '0027-link-view-tallies': linkViewTallies,
  '0028-key-makers': keyMakers,
  '0029-room-visits': roomVisits,
  '0030-reported-seconds': reportedSeconds,
  '0031-mail-outbox-without-messages': mailOutboxWithoutMessages,
  '0032-hashed-checkout-sessions': hashedCheckoutSessions,
  '0033-unverified-view-alerts': unverifiedViewAlerts,
  '0034-unverified-addresses': unverifiedAddresses,
  '0035-fair-jobs': fairJobs,
  '0036-password-stamps': passwordStamps,
  '0037-purged-renditions': purgedRenditions,
  '0038-fulfilled-purchases': fulfilledPurchases,
  '0039-totp-last-step': totpLastStep,
  '0040-purchase-pool': purchasePool,
  '0041-portal-visits': portalVisits,
  '0042-download-token-expiry': downloadTokenExpiry,
  '0043-view-alerts-muted': viewAlertsMuted,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};

/** This code's migrations by name, in order: a backup recording another is a newer linkvault's. */
export const migrationNames = (): string[] => Object.keys(migrations);
