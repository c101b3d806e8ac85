import { unprocessable } from '../../core/errors.js';
import type { FileIntake, StoredFile } from '../files/file-intake.js';
import type { ReceivedUpload } from '../files/multipart-upload.js';
import { parseSettingsForm, resolveSettings, type LinkSettings } from '../links/link-settings.js';
import { blobKeyOf, type LinksService } from '../links/links.service.js';

/** Receives the upload into the blob key it is given; the HTTP layer decides how. */
export type UploadReceiver = (blobKey: string) => Promise<ReceivedUpload>;

export function createUploadService(deps: {
  links: Pick<LinksService, 'newLinkId' | 'createFileLink' | 'ownLink' | 'replaceFile'>;
  intake: Pick<FileIntake, 'discard'>;
  paymentsConfigured: boolean;
}) {
  const { links, intake, paymentsConfigured } = deps;

  /** Runs `commit`; if it fails, the stored file goes too, so no blob outlives a failed request. */
  async function commitOrDiscard<T>(file: StoredFile, commit: () => Promise<T>): Promise<T> {
    try {
      return await commit();
    } catch (error) {
      await intake.discard(file);
      throw error;
    }
  }

  function assertPaymentsPossible(settings: LinkSettings): void {
    if (settings.requirePaymentToDownload && !paymentsConfigured) {
      throw unprocessable('Paid downloads are not available: payments are not configured on this server');
    }
  }

  return {
    async createLink(accountId: number, receive: UploadReceiver) {
      const linkId = links.newLinkId();
      const { file, fields } = await receive(blobKeyOf(linkId, 1));
      return commitOrDiscard(file, async () => {
        const settings = resolveSettings(parseSettingsForm(fields));
        assertPaymentsPossible(settings);
        return links.createFileLink(accountId, linkId, file, settings);
      });
    },

    async replaceFile(accountId: number, linkId: string, receive: UploadReceiver) {
      const link = await links.ownLink(accountId, linkId, { live: true });
      const { file } = await receive(blobKeyOf(linkId, link.version + 1));
      return commitOrDiscard(file, () => links.replaceFile(accountId, linkId, file, link.version));
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
