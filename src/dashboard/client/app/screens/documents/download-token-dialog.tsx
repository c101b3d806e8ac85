import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { formatDateTime, t, tn } from '../../i18n/index.js';
import { CopyButton } from '../../ui/copy-button.js';
import { Dialog } from '../../ui/dialog.js';
import { FormError, SelectField, TextField } from '../../ui/forms.js';
import type { LinkItem } from './link-list.js';

const LIFETIMES = {
  '3600': 'documents.token.hour',
  '86400': 'documents.token.day',
  '604800': 'documents.token.week',
  '2592000': 'documents.token.month',
} as const;
type Lifetime = keyof typeof LIFETIMES;

/** Issues a token to download the original file; the token is shown this once and never again. */
export function DownloadTokenDialog({ link, onClose }: { link: LinkItem; onClose: () => void }) {
  const [uses, setUses] = useState('1');
  const [lifetime, setLifetime] = useState<Lifetime>('86400');
  const issue = useMutation(() =>
    ok(
      api.POST('/api/links/{id}/download-tokens', {
        params: { path: { id: link.id } },
        body: { uses: Number(uses), ttlSeconds: Number(lifetime) },
      }),
    ),
  );
  const [issued, setIssued] = useState<Awaited<ReturnType<typeof issue.run>>>();
  const create = async (event: Event) => {
    event.preventDefault();
    setIssued(await issue.run());
  };
  const downloadUrl =
    issued && `${location.origin}/api/links/${encodeURIComponent(link.id)}/download-original?token=${encodeURIComponent(issued.token)}`;

  return (
    <Dialog title={t('documents.token.title', { name: link.name })} open onClose={onClose}>
      {issued && downloadUrl ? (
        <div class="documents-token">
          <p>{t('documents.token.once')}</p>
          <p class="documents-token-label">{t('documents.token.value')}</p>
          <code class="documents-token-value">{issued.token}</code>
          <p class="muted">
            {tn('documents.token.usesLeft', issued.uses)} · {t('documents.token.until', { date: formatDateTime(issued.expires_at) })}
          </p>
          <div class="dialog-actions">
            <CopyButton text={issued.token} label={t('documents.token.copy')} />
            <CopyButton text={downloadUrl} label={t('documents.token.copyUrl')} />
            <button type="button" class="button" onClick={onClose}>
              {t('documents.token.done')}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={(event) => void create(event)}>
          <p class="muted">{t('documents.token.text')}</p>
          <TextField label={t('documents.token.usesLabel')} type="number" min={1} max={1000} required value={uses} onValue={setUses} />
          <SelectField
            label={t('documents.token.lifetime')}
            value={lifetime}
            options={Object.entries(LIFETIMES).map(([value, label]) => ({ value: value as Lifetime, label: t(label) }))}
            onValue={setLifetime}
          />
          <FormError message={issue.error?.message} />
          <div class="dialog-actions">
            <button type="button" class="button secondary" onClick={onClose}>
              {t('action.cancel')}
            </button>
            <button type="submit" class="button" disabled={issue.busy}>
              {t('documents.token.create')}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
