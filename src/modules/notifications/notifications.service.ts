import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { AccessRequestRow, LinkRow } from '../../db/types.js';
import type { OutgoingMail } from '../../infra/mail/index.js';
import type { AccountRecords } from '../accounts/account-records.js';
import type { Decision, DecisionNotifier } from '../access-requests/access-requests.service.js';
import { formatPrice } from '../payments/price.js';
import type { PurchaseNotifier, PurchaseReceipt } from '../payments/stripe-webhook.service.js';
import type { PortalCodeNotifier, PortalRow } from '../portals/portal-access.service.js';
import type { ShareNotifier } from '../sharing/sharing.service.js';
import { OTP_TTL_MS } from '../visits/otp.service.js';
import type { AccessRequestNotice, Notifications } from '../visits/visits.service.js';
import { DEFAULT_BRAND, type Brand } from '../branding/brand.js';
import type { SignInMailer } from '../auth/auth.service.js';
import type { ClosureNotifier } from '../accounts/account-closure.service.js';
import type { InvitationNotifier } from '../members/invitations.service.js';
import type { ViewAlertMailer } from '../view-alerts/view-alerts.service.js';
import { MAIL_LOCALES, renderMail, type MailData, type MailKind, type MailLocale } from './mail-templates/index.js';

const DAY_MS = 86_400_000;

/**
 * Every e-mail the service sends, in the account's language and brand. Each is queued in the
 * outbox (never sent inline), so a slow or failing mail server cannot hold up a request, and in
 * the transaction of the change it tells about (`executor`), so a crash cannot lose it.
 */
export function createNotifications(deps: {
  db: Db;
  clock: Clock;
  /** Where the dashboard is: the mails to an account's people link to it. */
  publicUrl: string;
  mailer: { enqueue(mail: OutgoingMail, db?: Executor): Promise<number> };
  viewerUrlFor: (accountId: number, linkId: string, db?: Executor) => Promise<string>;
  mailBrandFor: (accountId: number, db?: Executor) => Promise<{ brand: Brand; locale: string }>;
  accounts: Pick<AccountRecords, 'byId'>;
}): Notifications &
  DecisionNotifier &
  ShareNotifier &
  PurchaseNotifier &
  PortalCodeNotifier &
  SignInMailer &
  InvitationNotifier &
  ViewAlertMailer &
  ClosureNotifier {
  const { db, clock, publicUrl, mailer, viewerUrlFor, mailBrandFor, accounts } = deps;
  const linkAnalyticsUrl = (linkId: string) => `${publicUrl}/app/documents/${encodeURIComponent(linkId)}/analytics`;

  /** Renders `kind` in the language and brand of the sender's account. */
  async function render<K extends MailKind>(sender: { account_id: number }, kind: K, data: (brand: Brand) => MailData[K], executor: Executor) {
    // Inside a caller's transaction every read goes through it too (SQLite has a single connection).
    const { brand, locale } = await mailBrandFor(sender.account_id, executor);
    return renderMail(kind, (MAIL_LOCALES as readonly string[]).includes(locale) ? (locale as MailLocale) : 'en', data(brand), brand);
  }

  /** Renders `kind` for the sender's account and queues it to `to`. */
  async function send<K extends MailKind>(sender: { account_id: number }, to: string, kind: K, data: MailData[K], executor: Executor): Promise<void> {
    const mail = await render(sender, kind, () => data, executor);
    await mailer.enqueue({ accountId: sender.account_id, to, kind, ...mail }, executor);
  }

  /**
   * Mail to the people who work in linkvault (invitations, sign-in links): through the system's
   * SMTP, never an account's own, in the account's language and brand when there is one.
   */
  async function sendToPerson<K extends MailKind>(accountId: number | null, to: string, kind: K, data: MailData[K], executor: Executor) {
    const { brand, locale } = accountId === null ? { brand: DEFAULT_BRAND, locale: 'en' } : await mailBrandFor(accountId, executor);
    const mail = renderMail(kind, (MAIL_LOCALES as readonly string[]).includes(locale) ? (locale as MailLocale) : 'en', data, brand);
    await mailer.enqueue({ accountId: null, to, kind, ...mail }, executor);
  }

  return {
    async invitation(to, data, executor) {
      const account = await accounts.byId(data.accountId, executor);
      const accountName = account?.name ?? account?.email ?? 'linkvault';
      await sendToPerson(
        data.accountId,
        to,
        'invitation',
        { accountName, inviterName: data.inviterName, role: data.role, acceptUrl: data.acceptUrl, days: data.days },
        executor,
      );
    },
    magicLink: (to, data, executor) => sendToPerson(data.accountId, to, 'magicLink', { url: data.url, minutes: data.minutes }, executor),
    passwordReset: (to, data, executor) => sendToPerson(data.accountId, to, 'passwordReset', { url: data.url, minutes: data.minutes }, executor),
    signUp: (to, data, executor) => sendToPerson(null, to, 'signUp', data, executor),
    emailChange: (to, data, executor) => sendToPerson(data.accountId, to, 'emailChange', { url: data.url, minutes: data.minutes }, executor),
    emailChanged: (to, data, executor) => sendToPerson(data.accountId, to, 'emailChanged', { newEmail: data.newEmail }, executor),
    signInDeleted: (to, data, executor) => sendToPerson(data.accountId, to, 'signInDeleted', {}, executor),
    accountDeleted: (to, { accountId, ...data }, executor) => sendToPerson(accountId, to, 'accountDeleted', data, executor),

    otpCode: (link: LinkRow, email: string, code: string, executor: Executor) =>
      send(link, email, 'otpCode', { documentName: link.name, code, minutes: OTP_TTL_MS / 60_000 }, executor),

    portalCode: (portal: PortalRow, email: string, code: string, executor: Executor) =>
      send(portal, email, 'otpCode', { documentName: portal.name, code, minutes: OTP_TTL_MS / 60_000 }, executor),

    accessRequested: (link: LinkRow, request: AccessRequestNotice, to: string, executor: Executor) =>
      send(
        link,
        to,
        'accessRequested',
        {
          documentName: link.name,
          requesterEmail: request.email,
          addressUnverified: !request.emailVerified,
          visitorIp: request.visitorIp,
          requestId: request.id,
          linkId: link.id,
          reviewUrl: `${publicUrl}/app/requests`,
        },
        executor,
      ),

    /** One mail rendered once, queued to each recipient in one transaction: all of them or none. */
    async documentShared(link: LinkRow, recipients: string[], viewerUrl: string, message: string | null) {
      const owner = await accounts.byId(link.account_id);
      const mail = await render(
        link,
        'documentShared',
        (brand) => ({
          documentName: link.name,
          viewerUrl,
          senderName: brand.companyName ?? owner?.name ?? owner?.email ?? 'linkvault',
          message,
        }),
        db,
      );
      await db.transaction().execute(async (trx) => {
        for (const to of recipients) await mailer.enqueue({ accountId: link.account_id, to, kind: 'documentShared', ...mail }, trx);
      });
    },

    async accessDecided(link: LinkRow, request: AccessRequestRow, decision: Decision, executor: Executor) {
      if (decision === 'denied') return send(link, request.email, 'accessDenied', { documentName: link.name }, executor);
      const viewerUrl = await viewerUrlFor(link.account_id, link.id, executor);
      await send(link, request.email, 'accessApproved', { documentName: link.name, viewerUrl }, executor);
    },

    // To the people of the account, through its own SMTP like the other mail about its documents.
    viewAlert: (accountId, to, { linkId, ...data }, executor) =>
      send({ account_id: accountId }, to, 'viewAlert', { ...data, analyticsUrl: linkAnalyticsUrl(linkId) }, executor),
    viewDigest: (accountId, to, data, executor) =>
      send({ account_id: accountId }, to, 'viewDigest', { ...data, analyticsUrl: `${publicUrl}/app/analytics` }, executor),

    saleMade: (link: LinkRow, sale: { email: string; amount: number; currency: string }, to: string, executor: Executor) =>
      send(
        link,
        to,
        'saleMade',
        {
          documentName: link.name,
          buyerEmail: sale.email,
          amountFormatted: formatPrice(sale.amount, sale.currency),
          analyticsUrl: linkAnalyticsUrl(link.id),
        },
        executor,
      ),

    purchaseReceipt: (link: LinkRow, receipt: PurchaseReceipt, executor: Executor) =>
      send(
        link,
        receipt.email,
        'purchaseReceipt',
        {
          documentName: link.name,
          amountFormatted: formatPrice(receipt.amount, receipt.currency),
          downloadUrl: receipt.downloadUrl,
          downloadsAllowed: receipt.downloads,
          validDays: Math.max(1, Math.round((receipt.expiresAt - clock()) / DAY_MS)),
        },
        executor,
      ),
  };
}
