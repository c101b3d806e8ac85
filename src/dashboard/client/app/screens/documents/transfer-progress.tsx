import { formatBytes, t } from '../../i18n/index.js';
import type { TransferProgress as Progress } from './file-transfer.js';

/** How much of the file is sent, in whole percent. */
export const percentOf = (progress: Progress) => (progress.total > 0 ? Math.floor((progress.loaded / progress.total) * 100) : 0);

/** A file's upload progress: a bar, and the bytes and percentage in words. */
export function TransferProgress({ name, progress }: { name: string; progress: Progress }) {
  const percent = percentOf(progress);
  return (
    <div class="documents-progress">
      <progress max={100} value={percent} aria-label={t('documents.progress.label', { name })} />
      <span class="muted">
        {t('documents.progress.bytes', { loaded: formatBytes(progress.loaded), total: formatBytes(progress.total), percent })}
      </span>
    </div>
  );
}
