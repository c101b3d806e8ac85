import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openUnmigratedDatabase } from '../../../test/helpers/database.js';

test("an expired link's renditions that an earlier purge left behind lose their rows, so the orphan sweep deletes their blobs", async (t) => {
  const { db, migrator } = await openUnmigratedDatabase(t);
  assert.equal((await migrator.migrateTo('0036-password-stamps')).error, undefined);
  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ email: 'old@example.com', name: null, plan: 'business', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const link = (id: string, purgedAt: number | null) => ({
    id,
    account_id: accountId,
    kind: 'file' as const,
    name: `${id}.pdf`,
    mime: 'application/pdf',
    created_at: 1,
    expires_at: 2,
    blob_purged_at: purgedAt,
  });
  await db
    .insertInto('links')
    .values([link('purged', 5), link('kept', null)])
    .execute();
  for (const linkId of ['purged', 'kept']) {
    const { id } = await db
      .insertInto('documents')
      .values({ account_id: accountId, link_id: linkId, version: 1, status: 'ready', page_count: 1, created_at: 1, updated_at: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('document_pages')
      .values({
        document_id: id,
        page: 1,
        width: 1600,
        height: 2000,
        image_key: `documents/${linkId}/page`,
        image_wrapped_key: 'w',
        image_size: 1,
        thumbnail_key: `documents/${linkId}/thumbnail`,
        thumbnail_wrapped_key: 'w',
        thumbnail_size: 1,
        text: '',
      })
      .execute();
  }

  assert.equal((await migrator.migrateToLatest()).error, undefined);
  assert.deepEqual(
    (await db.selectFrom('documents').select('link_id').execute()).map((row) => row.link_id),
    ['kept'],
  );
  assert.deepEqual(
    (await db.selectFrom('document_pages').select('image_key').execute()).map((row) => row.image_key),
    ['documents/kept/page'],
  );
});
