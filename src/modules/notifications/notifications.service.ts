import type { Db } from '../../db/kysely.js';
import type { AccessRequestRow, LinkRow } from '../../db/types.js';
import type { OutgoingMail } from '../../infra/mail/index.js';
import { findAccountById } from '../accounts/accounts.repo.js';
import type { Decision, DecisionNotifier } from '../access-requests/access-requests.service.js';
import type { ShareNotifier } from '../sharing/sharing.service.js';
import type { Notifications } from '../visits/visits.service.js';

/**
 * The e-mails the visitor gates cause. Each is queued in the outbox (never sent inline),
 * so a slow or failing mail server cannot hold up or fail a visitor's page.
 */
export function createNotifications(deps: {
  db: Db;
  mailer: { enqueue(mail: OutgoingMail): Promise<number> };
  viewerUrlFor: (accountId: number, linkId: string) => Promise<string>;
}): Notifications & DecisionNotifier & ShareNotifier {
  const { db, mailer, viewerUrlFor } = deps;
  return {
    async otpCode(link: LinkRow, email: string, code: string) {
      await mailer.enqueue({
        accountId: link.account_id,
        to: email,
        subject: `${code} is your code to view ${link.name}`,
        text: `Your one-time code to view "${link.name}" is ${code}.\n\nIt is valid for 10 minutes. If you did not ask for it, ignore this e-mail.`,
      });
    },

    async accessRequested(link: LinkRow, request: { id: number; email: string; visitorIp: string }) {
      const owner = await findAccountById(db, link.account_id);
      if (!owner) return;
      await mailer.enqueue({
        accountId: link.account_id,
        to: owner.email,
        subject: `${request.email} asks to view ${link.name}`,
        text:
          `${request.email} (from ${request.visitorIp}) asks to view "${link.name}".\n\n` +
          `Approve or deny it with the API: PATCH /api/links/${link.id}/requests/${request.id} {"status":"approved"} or {"status":"denied"}.`,
      });
    },

    async documentShared(link: LinkRow, recipient: string, viewerUrl: string, message: string | null) {
      const owner = await findAccountById(db, link.account_id);
      await mailer.enqueue({
        accountId: link.account_id,
        to: recipient,
        subject: `${owner?.name ?? owner?.email ?? 'Someone'} shared ${link.name} with you`,
        text: `${message ? `${message}\n\n` : ''}Open "${link.name}": ${viewerUrl}`,
      });
    },

    async accessDecided(link: LinkRow, request: AccessRequestRow, decision: Decision) {
      await mailer.enqueue({
        accountId: link.account_id,
        to: request.email,
        subject: decision === 'approved' ? `You can now view ${link.name}` : `Your request to view ${link.name} was declined`,
        text:
          decision === 'approved'
            ? `Your request to view "${link.name}" was approved. Open it here: ${await viewerUrlFor(link.account_id, link.id)}`
            : `Your request to view "${link.name}" was declined by its owner.`,
      });
    },
  };
}
