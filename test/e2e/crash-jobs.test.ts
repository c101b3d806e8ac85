import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/kysely.js';
import { testEnv } from '../helpers/app.js';
import { auditAfterCrash, lapseRunningLeases } from '../helpers/crash.js';
import { sleep } from '../helpers/wait.js';
import { createLink } from '../helpers/files.js';
import { createHttpClient } from '../helpers/http.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { VisitorClient } from '../helpers/visitor.js';

/**
 * An SMTP server that takes in the first message to each recipient and never answers it (a
 * slow server), and accepts any later one at once. Only an answered message counts as sent.
 */
async function startSlowSmtp(t: TestContext) {
  const held = new Set<string>();
  const arrived: string[] = [];
  const accepted: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address).join(',');
        arrived.push(to);
        if (held.has(to)) {
          accepted.push(to);
          callback();
        } else held.add(to); // never answered: the sender dies waiting
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, arrived, accepted };
}

/**
 * A webhook receiver that holds its answer to the first request telling of each view, and answers
 * the rest at once (the audit's downloads send events of their own, which nothing should wait on).
 */
async function startSlowReceiver(t: TestContext) {
  const arrived: string[] = [];
  const answered: string[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const text = (JSON.parse(body) as { text: string }).text;
      const first = text.includes(' viewed ') && !arrived.includes(text);
      arrived.push(text);
      if (first) {
        held.push(response);
        return;
      }
      response.writeHead(200).end('ok', () => answered.push(text));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const response of held) response.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrived, answered };
}

async function waitUntil(what: string, done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The jobs under test (each .txt link also queues its document's rendering, which is not). */
const DELIVERY_KINDS = ['mail.send', 'event.deliver'];

test('a mail and an event delivery interrupted by kill -9 are done once their lease lapses: the mail once, the delivery at least once', async (t) => {
  const smtp = await startSlowSmtp(t);
  const receiver = await startSlowReceiver(t);
  const env = await testEnv(t, { SMTP_URL: smtp.url, ALLOW_PRIVATE_WEBHOOKS: '1', EVENT_POLL_MS: '50' });
  const created = await runCli(['accounts', 'create', '--email', 'jobs@example.com', '--plan', 'business'], env);
  assert.equal(created.code, 0, created.stderr);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const database = openDatabase(loadConfig(env).database);
  t.after(() => database.close());
  const { db } = database;

  let server = await startServerProcess(t, env);
  assert.equal(
    (await createHttpClient(server.url, apiKey).post('/api/integrations', { type: 'slack', config: { webhook_url: receiver.url } })).status,
    200,
  );
  const ROUNDS = 2;
  for (let round = 0; round < ROUNDS; round++) {
    const owner = createHttpClient(server.url, apiKey);
    // No view alert: each round holds exactly one mail (the share) and one delivery.
    const id = await createLink(owner, `round ${round}`, `round-${round}.txt`, { notifyOnView: '0' });
    const reader = `reader${round}@example.com`;
    const viewed = `127.0.0.x viewed "round-${round}.txt"`;
    assert.equal((await owner.post(`/api/links/${id}/share`, { emails: [reader] })).status, 200);
    assert.equal((await new VisitorClient(server.url).get(`/v/${id}`)).status, 200);
    await waitUntil('the mail and the webhook to arrive', () => smtp.arrived.includes(reader) && receiver.arrived.includes(viewed));

    server.child.kill('SIGKILL');
    await server.exited;
    const running = await db
      .selectFrom('jobs')
      .select(['id', 'kind'])
      .where('status', '=', 'running')
      .where('kind', 'in', DELIVERY_KINDS)
      .orderBy('kind')
      .execute();
    assert.deepEqual(
      running.map((job) => job.kind),
      ['event.deliver', 'mail.send'],
      `round ${round}: both jobs died under their lease`,
    );
    await lapseRunningLeases(db);
    server = await startServerProcess(t, env);
    await waitUntil('the interrupted mail and delivery to be done', () => smtp.accepted.includes(reader) && receiver.answered.includes(viewed));
  }
  await sleep(300);

  assert.deepEqual(smtp.accepted.sort(), ['reader0@example.com', 'reader1@example.com'], 'each mail accepted exactly once');
  assert.equal(receiver.answered.length, ROUNDS, 'each event delivered once after the restart');
  assert.equal(receiver.arrived.length, 2 * ROUNDS, 'the interrupted delivery arrived again: at least once, as documented');
  const jobs = await db.selectFrom('jobs').select(['kind', 'status', 'attempts']).where('kind', 'in', DELIVERY_KINDS).execute();
  assert.ok(
    jobs.every((job) => job.status === 'done' && job.attempts === 2),
    JSON.stringify(jobs),
  );
  const mails = await db.selectFrom('mail_outbox').select(['status', 'attempts']).execute();
  assert.deepEqual(
    mails.map((mail) => mail.status),
    ['sent', 'sent'],
  );
  const deliveries = await db.selectFrom('event_deliveries').select(['status']).execute();
  assert.deepEqual(
    deliveries.map((delivery) => delivery.status),
    ['delivered', 'delivered'],
  );

  const audit = await auditAfterCrash(env, { url: server.url, apiKey });
  assert.deepEqual([audit.rowsWithoutBlob, audit.orphanBlobs, audit.damaged, audit.tempFiles], [[], [], [], []]);
  assert.equal(audit.downloadedIntact, ROUNDS);
  assert.ok(['ok', 'skipped'].includes(audit.integrity), `integrity_check: ${audit.integrity}`);
  server.child.kill('SIGTERM');
  await server.exited;
});
