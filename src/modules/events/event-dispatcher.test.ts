import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { openTestDatabase } from '../../../test/helpers/database.js';
import { createJobRunner, listJobs, type JobRunnerDeps } from '../../infra/jobs/index.js';
import type { Db } from '../../db/kysely.js';
import { insertAccount } from '../accounts/accounts.repo.js';
import { createAccountRecords } from '../accounts/account-records.js';
import { createAuditLog } from '../audit/audit.service.js';
import { createIntegrationsService } from '../integrations/integrations.service.js';
import { insertIntegration } from '../integrations/integrations.repo.js';
import {
  createEventDispatcher,
  EVENT_DELIVERY_JOB,
  PermanentDeliveryError,
  retryDelayMs,
  type DeliverFn,
  type EventDispatcherOptions,
} from './event-dispatcher.js';
import { createEventsService } from './events.service.js';

interface LogEntry {
  level: 'warn' | 'error';
  obj: Record<string, unknown>;
  msg?: string;
}

async function setup(t: TestContext, integrations = 1) {
  const { handle, reopen } = await openTestDatabase(t);
  const db = handle.db;
  const clock = { now: 1_700_000_000_000 };
  const accountId = await insertAccount(db, { email: `owner-${Math.random()}@example.com`, name: null, plan: 'business', createdAt: clock.now });
  const integrationIds: number[] = [];
  for (let i = 0; i < integrations; i++) {
    integrationIds.push(await insertIntegration(db, { accountId, type: 'slack', channel: '', webhookUrlSealed: 'sealed', now: clock.now }));
  }
  const log: LogEntry[] = [];
  const recordingLog = {
    warn: (obj: object, msg?: string) => log.push({ level: 'warn', obj: obj as LogEntry['obj'], msg }),
    error: (obj: object, msg?: string) => log.push({ level: 'error', obj: obj as LogEntry['obj'], msg }),
  };
  // Only writes jobs: the dispatchers below run them.
  const queue = createJobRunner({ db, clock: () => clock.now, log: recordingLog });
  const integrationsOf = (executor: Db) =>
    createIntegrationsService({
      db: executor,
      clock: () => clock.now,
      masterKey: Buffer.alloc(32),
      allowPrivateWebhooks: true,
      accounts: createAccountRecords({ db: executor }),
      audit: createAuditLog({ db: executor, clock: () => clock.now }),
      sendTestMessage: () => Promise.reject(new Error('no test messages here')),
    });
  const events = createEventsService({ db, clock: () => clock.now, jobs: queue, integrations: integrationsOf(db) });
  const record = (linkName = 'deck.pdf', executor = db) =>
    events.record(executor, { accountId, type: 'link.viewed', linkId: null, payload: { linkName, ip: '203.0.113.7' } });
  /** A replica: a job runner of its own running the event.deliver kind, wired as the runtime wires it. */
  const dispatcher = (deliver: DeliverFn, options: Partial<EventDispatcherOptions> = {}, runner: Partial<JobRunnerDeps> = {}) => {
    const replicaDb = options.db ?? db;
    const jobs = createJobRunner({ db: replicaDb, clock: () => clock.now, log: recordingLog, ...runner });
    jobs.register(
      EVENT_DELIVERY_JOB,
      createEventDispatcher({
        db: replicaDb,
        clock: () => clock.now,
        log: recordingLog,
        integrations: integrationsOf(replicaDb),
        deliver,
        pollMs: 10,
        retryBaseMs: 1_000,
        maxAttempts: 3,
        ...options,
      }),
    );
    t.after(() => jobs.stop());
    return { drain: () => jobs.drain(EVENT_DELIVERY_JOB), start: () => jobs.start() };
  };
  const deliveries = () => db.selectFrom('event_deliveries').selectAll().orderBy('id').execute();
  return { db, reopen, clock, accountId, integrationIds, record, log, dispatcher, deliveries };
}

test('an event gets one pending delivery per enabled integration of its own account', async (t) => {
  const { db, clock, record, deliveries, integrationIds } = await setup(t, 2);
  const stranger = await insertAccount(db, { email: 'stranger@example.com', name: null, plan: 'business', createdAt: clock.now });
  await insertIntegration(db, { accountId: stranger, type: 'teams', channel: '', webhookUrlSealed: 'sealed', now: clock.now });
  await db.updateTable('integrations').set({ enabled: 0 }).where('id', '=', integrationIds[1]!).execute();

  const eventId = await record();
  const rows = await deliveries();
  assert.equal(rows.length, 1);
  assert.deepEqual(
    {
      event: rows[0]!.event_id,
      integration: rows[0]!.integration_id,
      status: rows[0]!.status,
      attempts: rows[0]!.attempts,
      due: Number(rows[0]!.next_attempt_at),
    },
    { event: eventId, integration: integrationIds[0], status: 'pending', attempts: 0, due: clock.now },
  );
  const jobs = await listJobs(db);
  assert.deepEqual(
    jobs.map((job) => [job.kind, JSON.parse(job.payload), job.status, Number(job.run_at)]),
    [[EVENT_DELIVERY_JOB, { deliveryId: rows[0]!.id }, 'pending', clock.now]],
    'one job per delivery',
  );
});

test('an event recorded in a transaction that rolls back leaves no delivery and no job', async (t) => {
  const { db, record, deliveries } = await setup(t);
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await record('rolled back', trx);
      throw new Error('abort');
    }),
    /abort/,
  );
  assert.equal((await deliveries()).length, 0);
  assert.equal((await listJobs(db)).length, 0);
});

test('failures back off exponentially; the last try marks it failed and logs an error', async (t) => {
  const { clock, record, dispatcher, deliveries, log } = await setup(t);
  let calls = 0;
  const events = dispatcher(async () => {
    calls++;
    throw new Error('receiver answered 500');
  });
  await record();
  assert.equal(await events.drain(), 1);
  assert.equal((await deliveries())[0]!.status, 'pending');
  assert.equal(Number((await deliveries())[0]!.next_attempt_at), clock.now + 1_000);

  clock.now += 999;
  assert.equal(await events.drain(), 0, 'not due yet');
  clock.now += 1;
  assert.equal(await events.drain(), 1);
  assert.equal(Number((await deliveries())[0]!.next_attempt_at), clock.now + 2_000, 'the delay doubled');
  clock.now += 2_000;
  assert.equal(await events.drain(), 1);
  clock.now += 3_600_000;
  assert.equal(await events.drain(), 0, 'given up');
  assert.equal(calls, 3);

  const [row] = await deliveries();
  assert.equal(row!.status, 'failed');
  assert.equal(row!.attempts, 3);
  assert.equal(row!.last_error, 'receiver answered 500');
  assert.deepEqual(
    log.map((entry) => entry.level),
    ['warn', 'warn', 'error'],
  );
  assert.equal(log[2]!.msg, 'event delivery failed for good');
  assert.equal(log[2]!.obj.deliveryId, row!.id);
  assert.equal(log[2]!.obj.eventType, 'link.viewed');
  assert.equal(retryDelayMs(1_000, 30), 3_600_000, 'capped at an hour');
});

test('a permanent failure is not retried', async (t) => {
  const { record, dispatcher, deliveries, log } = await setup(t);
  const events = dispatcher(async () => {
    throw new PermanentDeliveryError('slack answered 404: no_service');
  });
  await record();
  await events.drain();
  const [row] = await deliveries();
  assert.deepEqual([row!.status, row!.attempts, row!.last_error], ['failed', 1, 'slack answered 404: no_service']);
  assert.equal(log[0]!.level, 'error');
});

test('two replicas on one database deliver each event exactly once', async (t) => {
  const { reopen, record, dispatcher, deliveries } = await setup(t, 2);
  for (let i = 0; i < 30; i++) await record(`doc ${i}`);
  const sent: number[] = [];
  const deliver: DeliverFn = async (delivery) => {
    sent.push(delivery.deliveryId);
    await new Promise((resolve) => setTimeout(resolve, 2));
  };
  const replicaA = dispatcher(deliver);
  const replicaB = dispatcher(deliver, { db: reopen().db });
  replicaA.start();
  replicaB.start();
  const deadline = Date.now() + 15_000;
  while ((await deliveries()).some((row) => row.status !== 'delivered') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const rows = await deliveries();
  assert.equal(rows.length, 60);
  assert.ok(rows.every((row) => row.status === 'delivered' && row.attempts === 1));
  assert.deepEqual(
    [...sent].sort((a, b) => a - b),
    rows.map((row) => row.id),
    'each delivery sent once',
  );
});

test('a delivery leased by a dispatcher that died goes out once the lease runs out', async (t) => {
  const { db, record, dispatcher, deliveries, clock } = await setup(t);
  await record();
  // Its stop gives up waiting at once: the send never ends.
  const crashed = dispatcher(() => new Promise<void>(() => {}), { leaseMs: 60_000 }, { stopTimeoutMs: 10 });
  void crashed.drain(); // hangs in the send, as a killed process would never finish it
  while ((await listJobs(db))[0]!.status !== 'running') await new Promise((resolve) => setTimeout(resolve, 5));

  let delivered = 0;
  const survivor = dispatcher(async () => {
    delivered++;
  });
  assert.equal(await survivor.drain(), 0, 'still leased');
  clock.now += 60_001;
  assert.equal(await survivor.drain(), 1);
  assert.equal(delivered, 1);
  const [row] = await deliveries();
  assert.deepEqual([row!.status, row!.attempts], ['delivered', 2]);
});
