import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';

export type RoomItem = paths['/api/links/rooms']['get']['responses'][200]['content']['application/json']['rooms'][number];

/** Cache keys: every rooms query starts with `rooms`, so one invalidation refreshes them all. */
export const roomsKey = (page: number) => `rooms:list:${page}`;
export const roomChildrenKey = (id: string) => `rooms:children:${id}`;

export const fetchRooms = (page: number, limit: number) => ok(api.GET('/api/links/rooms', { params: { query: { page, limit } } }));
export const fetchRoomChildren = async (id: string) => (await ok(api.GET('/api/links/{id}/children', { params: { path: { id } } }))).children;

/** The room shows exactly `ids`, in that order. */
export const setRoomChildren = (id: string, ids: string[]) =>
  ok(api.PUT('/api/links/{id}/children', { params: { path: { id } }, body: { children_ids: ids } }));
