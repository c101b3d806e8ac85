import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { useRequestKey } from '../../api/request-key.js';
import { t, tn } from '../../i18n/index.js';
import { Dialog } from '../../ui/dialog.js';
import { FormError, TextField } from '../../ui/forms.js';

/** Makes a data room of the selected links (POST /api/links/room) and opens it. */
export function RoomDialog({ linkIds, onClose }: { linkIds: string[]; onClose: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState('');
  const requestKey = useRequestKey();
  const create = useMutation(
    () => ok(api.POST('/api/links/room', { headers: { 'idempotency-key': requestKey }, body: { name: name.trim(), children_ids: linkIds } })),
    ['links', 'rooms'],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    const room = await create.run();
    if (room) route(`/app/rooms/${encodeURIComponent(room.id)}`);
  };
  return (
    <Dialog title={t('documents.room.title')} open onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <p class="muted">{tn('documents.room.text', linkIds.length)}</p>
        <TextField label={t('documents.room.name')} required maxLength={200} value={name} onValue={setName} />
        <FormError message={create.error?.message} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={onClose}>
            {t('action.cancel')}
          </button>
          <button type="submit" class="button" disabled={create.busy}>
            {t('documents.room.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
