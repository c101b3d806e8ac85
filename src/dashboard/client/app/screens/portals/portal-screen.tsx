import { useLocation, useRoute } from 'preact-iso';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { CopyButton } from '../../ui/copy-button.js';
import { useConfirmedDelete } from '../../ui/confirmed-delete.js';
import { changedFields, useDraft } from '../../ui/draft.js';
import { QueryState } from '../../ui/feedback.js';
import { FormError, listItems, listText } from '../../ui/forms.js';
import { PageHeader, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { LinkCollection } from '../collections/link-collection.js';
import { fetchPortal, portalKey, type PortalDetail } from './portal-data.js';
import { PortalFields, portalFieldOf, type PortalDraft } from './portal-fields.js';

const draftOf = (portal: PortalDetail): PortalDraft => ({ name: portal.name, slug: portal.slug, allowedEmails: listText(portal.allowedEmails) });
const changeOf = (draft: PortalDraft) => ({ name: draft.name.trim(), slug: draft.slug.trim(), allowedEmails: listItems(draft.allowedEmails) });

/** Name, address and clients; Save sends those changed, so a client another person added meanwhile stays. */
function PortalForm({ portal }: { portal: PortalDetail }) {
  const { draft, setDraft, saved } = useDraft(draftOf(portal));
  const save = useMutation(
    async (change: Partial<ReturnType<typeof changeOf>>) => {
      const answer = await ok(api.PATCH('/api/client-portals/{id}', { params: { path: { id: portal.id } }, body: change }));
      saved(draftOf({ ...portal, ...change }));
      return answer;
    },
    ['portals'],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    const change = changedFields(changeOf(draft), changeOf(draftOf(portal)));
    if (Object.keys(change).length === 0) return toast(t('state.unchanged'));
    if (await save.run(change)) toast(t('portals.saved'));
  };
  const message = save.error?.message;
  return (
    <Section title={t('portals.details.title')} description={t('portals.details.description')}>
      <form class="portals-form" onSubmit={(event) => void submit(event)}>
        <PortalFields draft={draft} onDraft={setDraft} error={message} />
        <FormError message={portalFieldOf(message) ? undefined : message} />
        <div class="form-actions">
          <button type="submit" class="button" disabled={save.busy}>
            {t('portals.save')}
          </button>
        </div>
      </form>
    </Section>
  );
}

function PortalLinks({ portal }: { portal: PortalDetail }) {
  const path = { id: portal.id };
  const add = useMutation(
    (linkId: string) => ok(api.POST('/api/client-portals/{id}/links', { params: { path }, body: { linkIds: [linkId] } })),
    [portalKey(portal.id)],
  );
  const remove = useMutation(
    (linkId: string) => ok(api.DELETE('/api/client-portals/{id}/links/{linkId}', { params: { path: { ...path, linkId } } })),
    [portalKey(portal.id)],
  );
  return (
    <LinkCollection
      title={t('portals.links.title')}
      description={t('portals.links.description')}
      links={portal.links}
      busy={add.busy || remove.busy}
      error={(add.error ?? remove.error)?.message}
      onAdd={(link) => void add.run(link.id)}
      onRemove={(link) => void remove.run(link.id)}
    />
  );
}

/** One client portal: its address to send, who may sign in, and the links it shows. */
export function PortalScreen() {
  const id = useRoute().params.id!;
  const { route } = useLocation();
  const portal = useQuery(portalKey(id), () => fetchPortal(id));
  const [confirmDelete, confirmDialog] = useConfirmedDelete();
  const remove = () => {
    const name = portal.data?.name ?? '';
    return confirmDelete({
      name,
      text: t('portals.delete.text'),
      done: t('portals.delete.done', { name }),
      remove: () => ok(api.DELETE('/api/client-portals/{id}', { params: { path: { id } } })),
      affects: ['portals'],
      then: () => route('/app/portals'),
    });
  };
  return (
    <>
      <PageHeader
        title={portal.data?.name ?? t('nav.portals')}
        lead={t('portals.portal.lead')}
        actions={
          <>
            <a class="button secondary" href="/app/portals">
              {t('portals.back')}
            </a>
            <button type="button" class="button danger" disabled={!portal.data} onClick={() => void remove()}>
              {t('portals.delete.action')}
            </button>
          </>
        }
      />
      <QueryState query={portal} rows={6}>
        {(data) => (
          <div>
            <div class="card portals-address">
              <span class="mono portals-url">{data.url}</span>
              <CopyButton text={data.url} label={t('portals.copy')} />
            </div>
            <PortalForm portal={data} />
            <PortalLinks portal={data} />
          </div>
        )}
      </QueryState>
      {confirmDialog}
    </>
  );
}
