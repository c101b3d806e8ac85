import type { ChangeSource } from '../audit/audit.service.js';
import type { FileIntake, StoredFile } from '../files/file-intake.js';
import type { ReceivedUpload } from '../files/multipart-upload.js';
import { assertPaymentsPossible, parseSettingsForm, resolveSettings, type PaymentsPolicy } from '../links/link-settings.js';
import { blobKeyOf, type CreatedLink, type LinksService, type ReplacedFile } from '../links/links.service.js';
import type { IdempotencyService } from '../idempotency/idempotency.service.js';
import type { Renditions } from '../documents/renditions.js';
import type { TemplatesService } from '../templates/templates.service.js';

/** Receives the upload into the blob key it is given; the HTTP layer decides how. */
export type UploadReceiver = (blobKey: string) => Promise<ReceivedUpload>;

/** The one place that decides whether paid settings can be honoured (uploads and templates both ask). */
export function createUploadService(deps: {
  links: Pick<LinksService, 'newLinkId' | 'createFileLink' | 'ownFileLink' | 'replaceFile'>;
  intake: Pick<FileIntake, 'discard'>;
  templates: Pick<TemplatesService, 'settingsForUpload'>;
  payments: PaymentsPolicy;
  idempotency: Pick<IdempotencyService, 'once'>;
  renditions: Pick<Renditions, 'queue'>;
}) {
  const { links, intake, templates, payments, idempotency, renditions } = deps;

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
    /** A new link for the file received; with `idempotencyKey`, a retry answers the first result (see idempotency.service). */
    createLink(source: ChangeSource, receive: UploadReceiver, idempotencyKey?: string) {
      const { accountId } = source;
      return idempotency.once<CreatedLink>(accountId, idempotencyKey, 'upload', async (recordAnswer) => {
        const linkId = links.newLinkId();
        const { file, fields } = await receive(blobKeyOf(linkId, 1));
        return commitOrDiscard(file, async () => {
          const stated = parseSettingsForm(fields);
          // Fields sent with the upload win over the template's.
          const settings = resolveSettings(await templates.settingsForUpload(accountId, fields.templateId), stated);
          await assertPaymentsPossible(settings, accountId, payments);
          return links.createFileLink(source, linkId, file, settings, async (trx, created) => {
            // The pages of a PDF or Office file are rendered by a job that exists only if the link does.
            await renditions.queue(trx, { id: linkId, account_id: accountId, version: 1, mime: file.mime, name: file.name, kind: 'file' });
            await recordAnswer?.(trx, created);
          });
        });
      });
    },

    replaceFile(source: ChangeSource, linkId: string, receive: UploadReceiver, idempotencyKey?: string) {
      const { accountId } = source;
      return idempotency.once<ReplacedFile>(accountId, idempotencyKey, `replace:${linkId}`, async (recordAnswer) => {
        const link = await links.ownFileLink(accountId, linkId);
        const { file } = await receive(blobKeyOf(linkId, link.version + 1));
        return commitOrDiscard(file, () =>
          links.replaceFile(source, linkId, file, link.version, async (trx, replaced) => {
            await renditions.queue(trx, {
              id: linkId,
              account_id: accountId,
              version: replaced.version,
              mime: file.mime,
              name: file.name,
              kind: 'file',
            });
            await recordAnswer?.(trx, replaced);
          }),
        );
      });
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
