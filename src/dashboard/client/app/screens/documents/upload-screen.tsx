import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { invalidate, useQuery } from '../../api/query.js';
import { formatBytes, t } from '../../i18n/index.js';
import { CopyButton } from '../../ui/copy-button.js';
import { SelectField } from '../../ui/forms.js';
import { PageHeader } from '../../ui/page.js';
import { sendFile, TransferCancelled, type TransferProgress as Progress } from './file-transfer.js';
import { percentOf, TransferProgress } from './transfer-progress.js';

interface CreatedLink {
  id: string;
  viewer_url: string;
}

/** One file of the screen, from choice to link. */
type Upload = { key: number; file: File; cancel: () => void } & (
  { state: 'sending'; progress: Progress } | { state: 'done'; link: CreatedLink } | { state: 'failed'; error: string } | { state: 'cancelled' }
);

let nextKey = 0;

/** The files being sent and sent: each starts at once, with its own progress, cancel and result. */
function useUploads(templateId: string) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const update = (key: number, change: Partial<Upload>) =>
    setUploads((list) => list.map((upload) => (upload.key === key ? ({ ...upload, ...change } as Upload) : upload)));

  const start = (files: FileList | File[]) => {
    for (const file of Array.from(files)) {
      const key = ++nextKey;
      const transfer = sendFile<CreatedLink>({
        method: 'POST',
        url: '/api/upload',
        file,
        fields: templateId ? { templateId } : {},
        onProgress: (progress) => update(key, { progress }),
      });
      setUploads((list) => [...list, { key, file, cancel: transfer.cancel, state: 'sending', progress: { loaded: 0, total: file.size } }]);
      // Leaving the screen does not stop a transfer: the file still becomes a link, and the list shows it.
      transfer.done.then(
        (link) => {
          update(key, { state: 'done', link });
          void invalidate('links', 'storage');
        },
        (error: Error) => update(key, error instanceof TransferCancelled ? { state: 'cancelled' } : { state: 'failed', error: error.message }),
      );
    }
  };
  return { uploads, start };
}

function TemplatePicker({ value, onValue }: { value: string; onValue: (id: string) => void }) {
  const templates = useQuery('templates:for-upload', () => ok(api.GET('/api/templates')));
  const options = [{ value: '', label: t('documents.uploadScreen.noTemplate') }];
  for (const template of templates.data?.templates ?? []) options.push({ value: String(template.id), label: template.name });
  return (
    <SelectField
      label={t('documents.uploadScreen.template')}
      hint={templates.error ? templates.error.message : t('documents.uploadScreen.templateHint')}
      value={value}
      options={options}
      onValue={onValue}
    />
  );
}

/** The drop zone: a real file input under a label, so a click, the keyboard or a drop all choose files. */
function DropZone({ onFiles }: { onFiles: (files: FileList) => void }) {
  const [over, setOver] = useState(false);
  return (
    <label
      class={`documents-dropzone${over ? ' documents-dropzone-over' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        if (event.dataTransfer?.files.length) onFiles(event.dataTransfer.files);
      }}
    >
      <span class="documents-dropzone-title">{t('documents.uploadScreen.drop')}</span>
      <span class="muted">{t('documents.uploadScreen.dropHint')}</span>
      <input
        type="file"
        multiple
        class="documents-dropzone-input"
        onChange={(event) => {
          const input = event.currentTarget;
          if (input.files?.length) onFiles(input.files);
          input.value = '';
        }}
      />
    </label>
  );
}

/** What the account's files take of the room the server gives it; said only where there is a limit. */
function StorageUse() {
  const storage = useQuery('storage', () => ok(api.GET('/api/links/storage')));
  const { usedBytes, limitBytes } = storage.data ?? { usedBytes: 0, limitBytes: null };
  if (limitBytes === null) return null;
  const text = t('documents.uploadScreen.storage', { used: formatBytes(usedBytes), limit: formatBytes(limitBytes) });
  return (
    <div class="documents-storage">
      <meter min={0} max={limitBytes} value={usedBytes} high={limitBytes * 0.9} aria-label={text} />
      <span class="muted">{text}</span>
    </div>
  );
}

/** What a screen reader is told of an upload as it goes: each quarter sent, then how it ended (a failure is an alert of its own). */
function spokenState(upload: Upload): string {
  const name = upload.file.name;
  if (upload.state === 'sending') return t('documents.progress.spoken', { name, percent: Math.floor(percentOf(upload.progress) / 25) * 25 });
  if (upload.state === 'done') return t('documents.uploadScreen.doneSpoken', { name });
  if (upload.state === 'cancelled') return t('documents.uploadScreen.cancelledSpoken', { name });
  return '';
}

function UploadRow({ upload }: { upload: Upload }) {
  return (
    <li class="card documents-upload">
      <p class="visually-hidden" role="status">
        {spokenState(upload)}
      </p>
      <div class="documents-upload-head">
        <span class="documents-name">{upload.file.name}</span>
        <span class="muted">{formatBytes(upload.file.size)}</span>
      </div>
      {upload.state === 'sending' && (
        <div class="documents-upload-body">
          <TransferProgress name={upload.file.name} progress={upload.progress} />
          <button type="button" class="button secondary small" onClick={upload.cancel}>
            {t('action.cancel')}
            <span class="visually-hidden"> {upload.file.name}</span>
          </button>
        </div>
      )}
      {upload.state === 'done' && (
        <div class="documents-upload-body">
          <span class="documents-upload-done">{t('documents.uploadScreen.done')}</span>
          <a class="button secondary small" href={`/app/documents/${encodeURIComponent(upload.link.id)}/settings`}>
            {t('documents.uploadScreen.settings')}
            <span class="visually-hidden"> {upload.file.name}</span>
          </a>
          <CopyButton text={upload.link.viewer_url} />
        </div>
      )}
      {upload.state === 'failed' && (
        <p class="field-error" role="alert">
          {upload.error}
        </p>
      )}
      {upload.state === 'cancelled' && <p class="muted">{t('documents.uploadScreen.cancelled')}</p>}
    </li>
  );
}

/** Several files at once, each with its progress and, once sent, its link. */
export function UploadScreen() {
  const [templateId, setTemplateId] = useState('');
  const { uploads, start } = useUploads(templateId);
  return (
    <>
      <PageHeader
        title={t('documents.uploadScreen.title')}
        lead={t('documents.uploadScreen.lead')}
        actions={
          <a class="button secondary" href="/app/documents">
            {t('documents.uploadScreen.back')}
          </a>
        }
      />
      <div class="card section">
        <TemplatePicker value={templateId} onValue={setTemplateId} />
        <DropZone onFiles={start} />
        <StorageUse />
      </div>
      {uploads.length > 0 && (
        <section aria-label={t('documents.uploadScreen.files')}>
          <ul class="documents-uploads">
            {uploads.map((upload) => (
              <UploadRow key={upload.key} upload={upload} />
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
