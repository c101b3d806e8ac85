import type { LinkRow } from '../../db/types.js';
import type { AuditLog, ChangeSource } from '../audit/audit.service.js';
import { normalizeEmails } from '../links/link-settings.js';
import type { LinksService } from '../links/links.service.js';

export interface ShareNotifier {
  documentShared(link: LinkRow, recipients: string[], viewerUrl: string, message: string | null): Promise<void>;
}

/** Sends a link's viewer URL to recipients, each in a mail of their own. */
export function createSharingService(deps: {
  links: Pick<LinksService, 'ownLink' | 'viewerUrlFor'>;
  notify: ShareNotifier;
  audit: Pick<AuditLog, 'record'>;
}) {
  const { links, notify, audit } = deps;
  return {
    async share(source: ChangeSource, linkId: string, emails: string[], message: string | undefined): Promise<void> {
      const { accountId } = source;
      const link = await links.ownLink(accountId, linkId, { live: true });
      const recipients = normalizeEmails(emails, 'emails');
      const viewerUrl = await links.viewerUrlFor(accountId, linkId);
      const note = message?.trim() ? message.trim() : null;
      await notify.documentShared(link, recipients, viewerUrl, note);
      await audit.record(source, { action: 'link.shared', target: { type: 'link', id: linkId }, details: { recipients } });
    },
  };
}

export type SharingService = ReturnType<typeof createSharingService>;
