import { useLocation, useRoute } from 'preact-iso';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { useConfirmedDelete } from '../../ui/confirmed-delete.js';
import { QueryState } from '../../ui/feedback.js';
import { PageHeader } from '../../ui/page.js';
import { LinkCollection, type CollectedLink } from '../collections/link-collection.js';
import { linkKey, useLink } from '../link/link-data.js';
import { LinkSummary } from '../link/link-summary.js';
import { fetchRoomChildren, roomChildrenKey, setRoomChildren } from './room-data.js';

/** A link moved `by` places in the list, where it is now. */
const moved = (ids: string[], linkId: string, by: -1 | 1) => {
  const at = ids.indexOf(linkId);
  if (at < 0) return ids;
  const next = ids.filter((id) => id !== linkId);
  next.splice(at + by, 0, linkId);
  return next;
};

/**
 * What the room shows, in its order. The API takes the room's whole list, so each change is made
 * to the list as it is on the server just before (read again): a link a colleague added or took
 * out meanwhile stays so.
 */
function RoomLinks({ roomId }: { roomId: string }) {
  const children = useQuery(roomChildrenKey(roomId), () => fetchRoomChildren(roomId));
  const change = useMutation(
    async (edit: (ids: string[]) => string[]) => {
      const now = (await fetchRoomChildren(roomId)).map((link) => link.id);
      return setRoomChildren(roomId, edit(now));
    },
    ['rooms', linkKey(roomId)],
  );
  return (
    <QueryState query={children}>
      {(links) => (
        <LinkCollection
          title={t('rooms.links.title')}
          description={t('rooms.links.description')}
          links={links}
          busy={change.busy}
          error={change.error?.message}
          filesOnly
          keepOne
          onAdd={(link) => void change.run((ids) => (ids.includes(link.id) ? ids : [...ids, link.id]))}
          onRemove={(link) => void change.run((ids) => ids.filter((id) => id !== link.id))}
          onMove={(link: CollectedLink, by: -1 | 1) => void change.run((ids) => moved(ids, link.id, by))}
        />
      )}
    </QueryState>
  );
}

/** One data room: its address and state (as any link's), the links it shows, and deleting it. */
export function RoomScreen() {
  const id = useRoute().params.id!;
  const { route } = useLocation();
  const room = useLink(id);
  const [confirmDelete, confirmDialog] = useConfirmedDelete();
  const remove = () => {
    const name = room.data?.name ?? '';
    return confirmDelete({
      name,
      text: t('rooms.delete.text'),
      done: t('rooms.delete.done', { name }),
      remove: () => ok(api.DELETE('/api/links/{id}', { params: { path: { id } } })),
      affects: ['rooms', 'links'],
      then: () => route('/app/rooms'),
    });
  };
  return (
    <>
      <PageHeader
        title={room.data?.name ?? t('nav.rooms')}
        lead={t('rooms.room.lead')}
        actions={
          <>
            <a class="button secondary" href="/app/rooms">
              {t('rooms.back')}
            </a>
            <button type="button" class="button danger" disabled={!room.data} onClick={() => void remove()}>
              {t('rooms.delete.action')}
            </button>
          </>
        }
      />
      <QueryState query={room} rows={6}>
        {(data) => (
          <div>
            <LinkSummary link={data} current="room" />
            <RoomLinks roomId={id} />
          </div>
        )}
      </QueryState>
      {confirmDialog}
    </>
  );
}
