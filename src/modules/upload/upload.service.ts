import type { FileIntake, StoredFile } from '../files/file-intake.js';
import type { ReceivedUpload } from '../files/multipart-upload.js';
import { parseSettingsForm, resolveSettings } from '../links/link-settings.js';
import { blobKeyOf, type LinksService } from '../links/links.service.js';
import { assertPaymentsPossible, type PaymentsPolicy } from '../payments/connect.service.js';
import type { TemplatesService } from '../templates/templates.service.js';

/** Receives the upload into the blob key it is given; the HTTP layer decides how. */
export type UploadReceiver = (blobKey: string) => Promise<ReceivedUpload>;

/** The one place that decides whether paid settings can be honoured (uploads and templates both ask). */
export function createUploadService(deps: {
  links: Pick<LinksService, 'newLinkId' | 'createFileLink' | 'ownLink' | 'replaceFile'>;
  intake: Pick<FileIntake, 'discard'>;
  templates: Pick<TemplatesService, 'settingsForUpload'>;
  payments: PaymentsPolicy;
}) {
  const { links, intake, templates, payments } = deps;

  /** Runs `commit`; if it fails, the stored file goes too, so no blob outlives a failed request. */
  async function commitOrDiscard<T>(file: StoredFile, commit: () => Promise<T>): Promise<T> {
    try {
      return await commit();
    } catch (error) {
      await intake.discard(file);
      throw error;
    }
  }

  return {
    async createLink(accountId: number, receive: UploadReceiver) {
      const linkId = links.newLinkId();
      const { file, fields } = await receive(blobKeyOf(linkId, 1));
      return commitOrDiscard(file, async () => {
        const stated = parseSettingsForm(fields);
        // Fields sent with the upload win over the template's.
        const settings = resolveSettings(await templates.settingsForUpload(accountId, fields.templateId), stated);
        await assertPaymentsPossible(settings, accountId, payments);
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
