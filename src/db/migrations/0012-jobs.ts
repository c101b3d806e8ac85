import type { Kysely } from 'kysely';
import { withIdColumn } from './helpers.js';

/** The rows this migration reads and writes, as they are at this point of the history. */
interface Outboxes {
  mail_outbox: { id: number; status: string; attempts: number; next_attempt_at: number };
  event_deliveries: { id: number; status: string; attempts: number; next_attempt_at: number };
  jobs: { kind: string; payload: string; status: string; run_at: number; attempts: number; created_at: number; updated_at: number };
}

const CARRY_BATCH = 500;

export async function up(db: Kysely<unknown>): Promise<void> {
  // One queue for all background work: the runner in src/infra/jobs claims rows with a lease,
  // retries with backoff and gives up after max_attempts (null: the kind's policy decides).
  await withIdColumn(db, db.schema.createTable('jobs'))
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('payload', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('run_at', 'bigint', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer')
    .addColumn('lease_until', 'bigint')
    .addColumn('lease_owner', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (column) => column.notNull())
    .addColumn('updated_at', 'bigint', (column) => column.notNull())
    .execute();
  // The claim looks up one kind's due or abandoned rows; the pruning finished rows by age.
  await db.schema.createIndex('jobs_claim_idx').on('jobs').columns(['kind', 'status', 'run_at']).execute();
  await db.schema.createIndex('jobs_finished_idx').on('jobs').columns(['status', 'updated_at']).execute();

  // What the two outboxes still had to send becomes jobs (kinds and payloads as the mailer and
  // the event dispatcher name them), due when their next attempt was, with the attempts made.
  const queues = db as Kysely<Outboxes>;
  const pendingIn = (table: 'mail_outbox' | 'event_deliveries') =>
    queues.selectFrom(table).select(['id', 'attempts', 'next_attempt_at']).where('status', '=', 'pending').orderBy('id').execute();
  const now = Date.now();
  const carried = [
    { kind: 'mail.send', key: 'mailId', rows: await pendingIn('mail_outbox') },
    { kind: 'event.deliver', key: 'deliveryId', rows: await pendingIn('event_deliveries') },
  ];
  for (const { kind, rows, key } of carried) {
    for (let start = 0; start < rows.length; start += CARRY_BATCH) {
      const jobs = rows.slice(start, start + CARRY_BATCH).map((row) => ({
        kind,
        payload: JSON.stringify({ [key]: row.id }),
        status: 'pending',
        run_at: Number(row.next_attempt_at),
        attempts: row.attempts,
        created_at: now,
        updated_at: now,
      }));
      await queues.insertInto('jobs').values(jobs).execute();
    }
  }

  // The leases now live on the jobs; these columns would only mislead. (One per statement: SQLite.)
  await db.schema.alterTable('mail_outbox').dropColumn('locked_until').execute();
  await db.schema.alterTable('event_deliveries').dropColumn('locked_until').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('event_deliveries').addColumn('locked_until', 'bigint').execute();
  await db.schema.alterTable('mail_outbox').addColumn('locked_until', 'bigint').execute();
  await db.schema.dropTable('jobs').execute();
}
