import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { useRequestKey } from '../../api/request-key.js';
import { t } from '../../i18n/index.js';
import { Dialog } from '../../ui/dialog.js';
import { FormError, listItems } from '../../ui/forms.js';
import { slugOf } from './portal-data.js';
import { PortalFields, portalFieldOf, type PortalDraft } from './portal-fields.js';

/** A new portal: its address follows its name until the owner types one; then its screen, to add links. */
export function NewPortalDialog({ onClose }: { onClose: () => void }) {
  const { route } = useLocation();
  const [draft, setDraft] = useState<PortalDraft>({ name: '', slug: '', allowedEmails: '' });
  const [slugTyped, setSlugTyped] = useState(false);
  const requestKey = useRequestKey();
  const create = useMutation(
    () =>
      ok(
        api.POST('/api/client-portals', {
          headers: { 'idempotency-key': requestKey },
          body: { name: draft.name.trim(), slug: draft.slug.trim(), allowedEmails: listItems(draft.allowedEmails) },
        }),
      ),
    ['portals'],
  );
  const change = (next: PortalDraft) => setDraft(slugTyped || next.name === draft.name ? next : { ...next, slug: slugOf(next.name) });
  const submit = async (event: Event) => {
    event.preventDefault();
    const portal = await create.run();
    if (portal) route(`/app/portals/${encodeURIComponent(portal.id)}`);
  };
  return (
    <Dialog title={t('portals.new.title')} open onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <PortalFields draft={draft} onDraft={change} error={create.error?.message} onSlugEdited={() => setSlugTyped(true)} />
        <FormError message={portalFieldOf(create.error?.message) ? undefined : create.error?.message} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={onClose}>
            {t('action.cancel')}
          </button>
          <button type="submit" class="button" disabled={create.busy}>
            {t('portals.new.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
