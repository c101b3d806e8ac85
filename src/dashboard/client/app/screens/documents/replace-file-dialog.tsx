import { useEffect, useRef, useState } from 'preact/hooks';
import { invalidate } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { Dialog } from '../../ui/dialog.js';
import { Field, FormError } from '../../ui/forms.js';
import { toast } from '../../ui/toast.js';
import { sendFile, TransferCancelled, type FileTransfer, type TransferProgress as Progress } from './file-transfer.js';
import type { LinkItem } from './link-list.js';
import { TransferProgress } from './transfer-progress.js';

/** A new version of the link's file under the same address (PUT /api/links/{id}/file). */
export function ReplaceFileDialog({ link, onClose }: { link: LinkItem; onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<string | undefined>();
  const transfer = useRef<FileTransfer<{ version: number }> | null>(null);
  useEffect(() => () => transfer.current?.cancel(), []);

  const replace = async (event: Event) => {
    event.preventDefault();
    if (!file) return setError(t('documents.replace.chooseFirst'));
    setError(undefined);
    setProgress({ loaded: 0, total: file.size });
    transfer.current = sendFile({ method: 'PUT', url: `/api/links/${encodeURIComponent(link.id)}/file`, file, onProgress: setProgress });
    try {
      const { version } = await transfer.current.done;
      await invalidate('links');
      toast(t('documents.replace.done', { name: link.name, version }));
      onClose();
    } catch (caught) {
      if (!(caught instanceof TransferCancelled)) setError((caught as Error).message);
      setProgress(null);
    } finally {
      transfer.current = null;
    }
  };

  return (
    <Dialog title={t('documents.replace.title', { name: link.name })} open onClose={onClose}>
      <form onSubmit={(event) => void replace(event)}>
        <p class="muted">{t('documents.replace.text')}</p>
        <Field label={t('documents.replace.file')}>
          {(control) => <input {...control} class="input" type="file" onChange={(event) => setFile(event.currentTarget.files?.[0] ?? null)} />}
        </Field>
        {progress && file && <TransferProgress name={file.name} progress={progress} />}
        <FormError message={error} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={onClose}>
            {t('action.cancel')}
          </button>
          <button type="submit" class="button" disabled={progress !== null}>
            {t('documents.replace.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
