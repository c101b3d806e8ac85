import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { Field, FormError } from '../../ui/forms.js';
import { toast } from '../../ui/toast.js';
import { linkKey, type LinkDetail } from './link-data.js';

/** The picture link previews (chat apps, social sites) show: uploaded on its own, or removed. */
export function PreviewImageField({ link }: { link: LinkDetail }) {
  const [file, setFile] = useState<File | null>(null);
  const path = { id: link.id };
  const upload = useMutation(
    (image: File) => {
      const form = new FormData();
      form.append('image', image);
      return ok(
        api.PUT('/api/links/{id}/preview-image', { params: { path }, body: form as never, bodySerializer: (body: unknown) => body as FormData }),
      );
    },
    [linkKey(link.id)],
  );
  const remove = useMutation(() => ok(api.DELETE('/api/links/{id}/preview-image', { params: { path } })), [linkKey(link.id)]);
  const send = async () => {
    if (file && (await upload.run(file))) {
      setFile(null);
      toast(t('link.previewImage.saved'));
    }
  };
  return (
    <div class="link-preview-image">
      <Field label={t('link.previewImage.label')} hint={link.settings.hasPreviewImage ? t('link.previewImage.hasOne') : t('link.previewImage.hint')}>
        {(control) => (
          <input
            type="file"
            accept="image/png,image/jpeg,image/webp"
            {...control}
            onChange={(event) => setFile(event.currentTarget.files?.[0] ?? null)}
          />
        )}
      </Field>
      <FormError message={(upload.error ?? remove.error)?.message} />
      <div class="form-actions">
        {link.settings.hasPreviewImage && (
          <button
            type="button"
            class="button secondary"
            disabled={remove.busy}
            onClick={() => void remove.run().then((done) => done && toast(t('link.previewImage.removed')))}
          >
            {t('link.previewImage.remove')}
          </button>
        )}
        <button type="button" class="button" disabled={!file || upload.busy} onClick={() => void send()}>
          {t('link.previewImage.upload')}
        </button>
      </div>
    </div>
  );
}
