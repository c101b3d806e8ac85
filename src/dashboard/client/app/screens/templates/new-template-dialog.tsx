import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { useRequestKey } from '../../api/request-key.js';
import { t } from '../../i18n/index.js';
import { Dialog } from '../../ui/dialog.js';
import { FormError, TextField, Toggle } from '../../ui/forms.js';
import { TEMPLATES } from './template-data.js';

/** A name (and the spec's watermark flag); the other settings are set on the template's screen, opened next. */
export function NewTemplateDialog({ onClose }: { onClose: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState('');
  const [hasWatermark, setHasWatermark] = useState(false);
  const requestKey = useRequestKey();
  const create = useMutation(
    () => ok(api.POST('/api/templates', { headers: { 'idempotency-key': requestKey }, body: { name: name.trim(), hasWatermark } })),
    [TEMPLATES],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await create.run();
    if (created) route(`/app/templates/${created.id}`);
  };
  return (
    <Dialog title={t('templates.new.title')} open onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <TextField label={t('templates.field.name')} hint={t('templates.field.nameHint')} required maxLength={200} value={name} onValue={setName} />
        <Toggle label={t('templates.field.watermark')} checked={hasWatermark} onChange={setHasWatermark} />
        <FormError message={create.error?.message} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={onClose}>
            {t('action.cancel')}
          </button>
          <button type="submit" class="button" disabled={create.busy || name.trim() === ''}>
            {t('templates.new.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
