import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { useRequestKey } from '../../api/request-key.js';
import { t } from '../../i18n/index.js';
import { Dialog } from '../../ui/dialog.js';
import { FormError, TextField } from '../../ui/forms.js';
import { LinkPicker } from '../collections/link-picker.js';

/** A name and the first links of a new data room (the API wants at least one), then the room's screen. */
export function NewRoomDialog({ onClose }: { onClose: () => void }) {
  const { route } = useLocation();
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Array<{ id: string; name: string }>>([]);
  const requestKey = useRequestKey();
  const create = useMutation(
    () =>
      ok(
        api.POST('/api/links/room', {
          headers: { 'idempotency-key': requestKey },
          body: { name: name.trim(), children_ids: chosen.map((link) => link.id) },
        }),
      ),
    ['rooms', 'links'],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    const room = await create.run();
    if (room) route(`/app/rooms/${encodeURIComponent(room.id)}`);
  };
  return (
    <Dialog title={t('rooms.new.title')} open onClose={onClose} wide>
      <form onSubmit={(event) => void submit(event)}>
        <TextField label={t('rooms.new.name')} hint={t('rooms.new.nameHint')} required maxLength={200} value={name} onValue={setName} />
        <h3 class="rooms-chosen-title">{t('rooms.new.chosen', { count: chosen.length })}</h3>
        {chosen.length === 0 ? (
          <p class="muted">{t('rooms.new.noneChosen')}</p>
        ) : (
          <ul class="collection-list" aria-label={t('rooms.new.chosenLabel')}>
            {chosen.map((link) => (
              <li key={link.id} class="collection-item">
                <span class="collection-name">{link.name}</span>
                <button
                  type="button"
                  class="button secondary small"
                  aria-label={t('collections.removeLabel', { name: link.name })}
                  onClick={() => setChosen(chosen.filter((other) => other.id !== link.id))}
                >
                  {t('collections.remove')}
                </button>
              </li>
            ))}
          </ul>
        )}
        <LinkPicker chosen={new Set(chosen.map((link) => link.id))} filesOnly onPick={(link) => setChosen([...chosen, link])} />
        <FormError message={create.error?.message} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={onClose}>
            {t('action.cancel')}
          </button>
          <button type="submit" class="button" disabled={create.busy || chosen.length === 0 || name.trim() === ''}>
            {t('rooms.new.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
