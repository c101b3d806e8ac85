import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openUnmigratedDatabase } from '../../../test/helpers/database.js';

test('mail and event deliveries pending before the upgrade become jobs; nothing queued is lost', async (t) => {
  const { db, migrator } = await openUnmigratedDatabase(t);
  assert.equal((await migrator.migrateTo('0011-purchase-tokens')).error, undefined);

  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ email: 'old@example.com', name: null, plan: 'business', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const mail = (subject: string, status: string, attempts: number, due: number) =>
    sql<{
      id: number;
    }>`insert into mail_outbox (account_id, to_address, subject, text_body, status, attempts, next_attempt_at, locked_until, created_at)
      values (${accountId}, 'viewer@example.com', ${subject}, 't', ${status}, ${attempts}, ${due}, ${due + 60_000}, 1) returning id`.execute(db);
  const waiting = (await mail('waiting', 'pending', 2, 5_000)).rows[0]!.id;
  await mail('sent', 'sent', 1, 1_000);
  const { id: integrationId } = await db
    .insertInto('integrations')
    .values({ account_id: accountId, type: 'slack', channel: '', webhook_url_sealed: 'sealed', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const { id: eventId } = await db
    .insertInto('events')
    .values({ account_id: accountId, type: 'link.viewed', link_id: null, payload: '{"linkName":"x"}', created_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const delivery = (status: string) =>
    sql<{ id: number }>`insert into event_deliveries (event_id, integration_id, status, attempts, next_attempt_at)
      values (${eventId}, ${integrationId}, ${status}, 0, 7000) returning id`.execute(db);
  const undelivered = (await delivery('pending')).rows[0]!.id;
  await delivery('failed');

  assert.equal((await migrator.migrateToLatest()).error, undefined);
  const jobs = await db.selectFrom('jobs').selectAll().orderBy('id').execute();
  assert.deepEqual(
    jobs.map((job) => [job.kind, JSON.parse(job.payload), job.status, Number(job.run_at), job.attempts, job.max_attempts, job.lease_until]),
    [
      ['mail.send', { mailId: waiting }, 'pending', 5_000, 2, null, null],
      ['event.deliver', { deliveryId: undelivered }, 'pending', 7_000, 0, null, null],
    ],
  );
  const outbox = await db.selectFrom('mail_outbox').selectAll().where('id', '=', waiting).executeTakeFirstOrThrow();
  assert.ok(!('locked_until' in outbox), 'the lease lives on the job now');

  assert.equal((await migrator.migrateTo('0011-purchase-tokens')).error, undefined, 'the migration goes down as well');
});
