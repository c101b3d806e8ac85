import type { Kysely } from 'kysely';

// Issue 20: what a chat or social app shows of a shared link (Open Graph / Twitter card).
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['preview_title', 'preview_description', 'preview_image_key']) {
    await db.schema.alterTable('links').addColumn(column, 'text').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['preview_image_key', 'preview_description', 'preview_title']) {
    await db.schema.alterTable('links').dropColumn(column).execute();
  }
}
