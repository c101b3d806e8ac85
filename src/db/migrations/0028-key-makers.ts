import type { Kysely } from 'kysely';

// Every key acted as an owner, so an admin could make one and, with it, promote themselves and
// remove the owners; a key also outlived its maker's membership. A key now records the person who
// made it and acts with their current role in its account. Keys made before, or by the operator
// at the command line, have none and keep acting as owner.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('created_by', 'integer', (column) => column.references('users.id').onDelete('cascade'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('created_by').execute();
}
