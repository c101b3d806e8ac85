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

/** What the room shows, in its order: each change is sent whole, as the room's new list. */
function RoomLinks({ roomId }: { roomId: string }) {
  const children = useQuery(roomChildrenKey(roomId), () => fetchRoomChildren(roomId));
  const change = useMutation((ids: string[]) => setRoomChildren(roomId, ids), ['rooms', linkKey(roomId)]);
  return (
    <QueryState query={children}>
      {(links) => {
        const ids = links.map((link) => link.id);
        const move = (link: CollectedLink, by: -1 | 1) => {
          const next = ids.filter((id) => id !== link.id);
          next.splice(ids.indexOf(link.id) + by, 0, link.id);
          void change.run(next);
        };
        return (
          <LinkCollection
            title={t('rooms.links.title')}
            description={t('rooms.links.description')}
            links={links}
            busy={change.busy}
            error={change.error?.message}
            filesOnly
            keepOne
            onAdd={(link) => void change.run([...ids, link.id])}
            onRemove={(link) => void change.run(ids.filter((id) => id !== link.id))}
            onMove={move}
          />
        );
      }}
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
