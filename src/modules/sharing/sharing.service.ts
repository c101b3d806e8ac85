import type { LinkRow } from '../../db/types.js';
import { normalizeEmails } from '../links/link-settings.js';
import type { LinksService } from '../links/links.service.js';

export interface ShareNotifier {
  documentShared(link: LinkRow, recipients: string[], viewerUrl: string, message: string | null): Promise<void>;
}

/** Sends a link's viewer URL to recipients, each in a mail of their own. */
export function createSharingService(deps: { links: Pick<LinksService, 'ownLink' | 'viewerUrlFor'>; notify: ShareNotifier }) {
  const { links, notify } = deps;
  return {
    async share(accountId: number, linkId: string, emails: string[], message: string | undefined): Promise<void> {
      const link = await links.ownLink(accountId, linkId, { live: true });
      const recipients = normalizeEmails(emails, 'emails');
      const viewerUrl = await links.viewerUrlFor(accountId, linkId);
      const note = message?.trim() ? message.trim() : null;
      await notify.documentShared(link, recipients, viewerUrl, note);
    },
  };
}

export type SharingService = ReturnType<typeof createSharingService>;
