import type { Kysely } from 'kysely';

// A visit of a data room's link was bound to the link only, so its cookie, or the link's id once
// learnt, opened the link outside the room, past the room's gates and watermark. A visit now
// records the room it was begun in and is found only there. Visits begun in a room before this
// have none: their visitors pass the link's own gates again inside the room.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('visits').addColumn('room_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('visits').dropColumn('room_id').execute();
}
