import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openUnmigratedDatabase } from '../../../test/helpers/database.js';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

test('checkout session ids stored before the upgrade are kept as their SHA-256 after it', async (t) => {
  const { db, migrator } = await openUnmigratedDatabase(t);
  assert.equal((await migrator.migrateTo('0031-mail-outbox-without-messages')).error, undefined);
  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ email: 'old@example.com', name: null, plan: 'business', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('links')
    .values({ id: 'sold', account_id: accountId, kind: 'file', name: 'sold.pdf', mime: 'application/pdf', created_at: 1, expires_at: 2 })
    .execute();
  const sessions = ['cs_test_first', 'cs_test_second'];
  for (const session of sessions) {
    await sql`insert into purchases (link_id, checkout_session_id, email, amount, currency, link_version, downloads_left, expires_at, created_at)
      values ('sold', ${session}, 'buyer@example.net', 1200, 'eur', 1, 5, 2, 1)`.execute(db);
  }

  assert.equal((await migrator.migrateToLatest()).error, undefined);
  const rows = await db.selectFrom('purchases').select('checkout_session_hash').orderBy('id').execute();
  assert.deepEqual(
    rows.map((row) => row.checkout_session_hash),
    sessions.map(sha256Hex),
  );
  assert.equal((await migrator.migrateTo('0031-mail-outbox-without-messages')).error, undefined, 'the migration goes down as well');
});

test('a run of migrations that fails half way leaves nothing of itself behind, and runs whole once the cause is gone', async (t) => {
  const { db, migrator, kind } = await openUnmigratedDatabase(t);
  assert.equal((await migrator.migrateTo('0031-mail-outbox-without-messages')).error, undefined);
  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ email: 'old@example.com', name: null, plan: 'business', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('links')
    .values({ id: 'sold', account_id: accountId, kind: 'file', name: 'sold.pdf', mime: 'application/pdf', created_at: 1, expires_at: 2 })
    .execute();
  for (const session of ['cs_test_first', 'cs_test_second']) {
    await sql`insert into purchases (link_id, checkout_session_id, email, amount, currency, link_version, downloads_left, expires_at, created_at)
      values ('sold', ${session}, 'buyer@example.net', 1200, 'eur', 1, 5, 2, 1)`.execute(db);
  }
  // The second purchase refuses its update: 0032 fails after renaming the column and hashing the first.
  const postgres = kind === 'postgres';
  if (postgres) {
    await sql`create function cut_short() returns trigger as $$ begin raise exception 'cut short'; end $$ language plpgsql`.execute(db);
    await sql`create trigger cut_short before update on purchases for each row when (old.checkout_session_id = 'cs_test_second') execute function cut_short()`.execute(
      db,
    );
  } else {
    await sql`create trigger cut_short before update on purchases when old.checkout_session_id = 'cs_test_second' begin select raise(abort, 'cut short'); end`.execute(
      db,
    );
  }

  const failed = await migrator.migrateToLatest();
  assert.match(String(failed.error), /cut short/);
  const sessions = await sql<{ checkout_session_id: string }>`select checkout_session_id from purchases order by id`.execute(db);
  assert.deepEqual(
    sessions.rows.map((row) => row.checkout_session_id),
    ['cs_test_first', 'cs_test_second'],
    'the column is not renamed and no row is hashed',
  );
  assert.equal(
    (await migrator.getMigrations()).findLast((migration) => migration.executedAt !== undefined)?.name,
    '0031-mail-outbox-without-messages',
    'the run recorded none of its migrations',
  );

  await sql`drop trigger cut_short${postgres ? sql` on purchases` : sql``}`.execute(db);
  assert.equal((await migrator.migrateToLatest()).error, undefined);
  const rows = await db.selectFrom('purchases').select('checkout_session_hash').orderBy('id').execute();
  assert.deepEqual(
    rows.map((row) => row.checkout_session_hash),
    ['cs_test_first', 'cs_test_second'].map(sha256Hex),
  );
});
