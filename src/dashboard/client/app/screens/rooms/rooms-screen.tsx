import { useState } from 'preact/hooks';
import { useQuery } from '../../api/query.js';
import { formatDate, t, tn } from '../../i18n/index.js';
import { CardTable } from '../../ui/card-table.js';
import { CopyButton } from '../../ui/copy-button.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { Chip, PageHeader, Pagination } from '../../ui/page.js';
import { NewRoomDialog } from './new-room-dialog.js';
import { fetchRooms, roomsKey, type RoomItem } from './room-data.js';

const PAGE_SIZE = 20;

function RoomState({ room }: { room: RoomItem }) {
  if (room.is_expired) return <Chip tone="danger">{t('rooms.state.expired', { date: formatDate(room.expires_at) })}</Chip>;
  if (!room.is_active) return <Chip tone="warning">{t('rooms.state.off')}</Chip>;
  if (room.has_expiry) return <Chip>{t('rooms.state.expires', { date: formatDate(room.expires_at) })}</Chip>;
  return <Chip tone="success">{t('rooms.state.on')}</Chip>;
}

function RoomRow({ room }: { room: RoomItem }) {
  return (
    <tr>
      <td data-label={t('rooms.column.name')}>
        <a class="rooms-name" href={`/app/rooms/${encodeURIComponent(room.id)}`}>
          {room.name}
        </a>
        <span class="muted rooms-created">{t('rooms.created', { date: formatDate(room.created_at) })}</span>
      </td>
      <td data-label={t('rooms.column.links')}>{tn('rooms.links', room.links)}</td>
      <td data-label={t('rooms.column.views')}>{tn('rooms.views', room.views)}</td>
      <td data-label={t('rooms.column.state')}>
        <RoomState room={room} />
      </td>
      <td>
        <div class="rooms-actions">
          <CopyButton text={room.viewer_url} />
        </div>
      </td>
    </tr>
  );
}

/** The account's data rooms: one viewer link for several documents, newest first. */
export function RoomsScreen() {
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const rooms = useQuery(roomsKey(page), () => fetchRooms(page, PAGE_SIZE));
  const newRoom = (
    <button type="button" class="button" onClick={() => setCreating(true)}>
      {t('rooms.new.open')}
    </button>
  );
  return (
    <>
      <PageHeader title={t('nav.rooms')} lead={t('rooms.lead')} actions={newRoom} />
      <QueryState query={rooms}>
        {({ rooms: list, pagination }) =>
          list.length === 0 ? (
            <EmptyState title={t('rooms.empty.title')} text={t('rooms.empty.text')} action={newRoom} />
          ) : (
            <>
              <CardTable
                caption={t('rooms.table')}
                columns={[t('rooms.column.name'), t('rooms.column.links'), t('rooms.column.views'), t('rooms.column.state')]}
                actions={t('rooms.column.actions')}
              >
                {list.map((room) => (
                  <RoomRow key={room.id} room={room} />
                ))}
              </CardTable>
              <Pagination page={pagination.page} limit={pagination.limit} total={pagination.total} onPage={setPage} />
            </>
          )
        }
      </QueryState>
      {creating && <NewRoomDialog onClose={() => setCreating(false)} />}
    </>
  );
}
