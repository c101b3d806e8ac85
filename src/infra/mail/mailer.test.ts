import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { openTestDatabase } from '../../../test/helpers/database.js';
import { selfSignedCertificate } from '../../../test/helpers/certificates.js';
import { mailerOnJobRunner } from '../../../test/helpers/mailer.js';
import { insertAccount } from '../../modules/accounts/accounts.repo.js';
import { listJobs } from '../jobs/index.js';
import { MAIL_JOB, type MailerDeps, type MailLog } from './mailer.js';
import { listMail } from './outbox.repo.js';
import { transportSettingsFromUrl, type MailTransportSettings } from './transport.js';
import { requirePeer } from '../../../test/helpers/requirements.js';

const FROM = 'linkvault <no-reply@linkvault.test>';
const masterKey = randomBytes(32);

interface Received {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | false;
  secure: boolean;
  user: string | undefined;
}

interface TestSmtp {
  port: number;
  received: Received[];
  /** The password the client authenticated with, per session. */
  passwords: string[];
  /** Resolves once `count` messages have arrived. */
  waitFor(count: number): Promise<void>;
}

/** A real SMTP server on loopback; `reject(n)` decides whether the n-th DATA (from 1) is refused. */
async function startSmtp(
  t: TestContext,
  options: { port?: number; reject?: (attempt: number) => boolean; tls?: { key: string; cert: string }; secure?: boolean } = {},
): Promise<TestSmtp> {
  const received: Received[] = [];
  const passwords: string[] = [];
  const waiters: (() => void)[] = [];
  let dataCommands = 0;
  const serverOptions: SMTPServerOptions = {
    logger: false,
    authOptional: true,
    allowInsecureAuth: true,
    secure: options.secure ?? false,
    disabledCommands: options.tls ? [] : ['STARTTLS'],
    ...(options.tls ?? {}),
    onAuth(auth, _session, callback) {
      passwords.push(auth.password ?? '');
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (options.reject?.(++dataCommands)) {
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        simpleParser(Buffer.concat(chunks)).then((parsed) => {
          received.push({
            from: parsed.from?.value.map((sender) => `${sender.name} <${sender.address}>`).join(', ') ?? '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address).join(','),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: parsed.html,
            secure: session.secure,
            user: session.user as string | undefined,
          });
          callback();
          waiters.splice(0).forEach((wake) => wake());
        }, callback);
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(resolve)));
  return {
    port: (server.server.address() as net.AddressInfo).port,
    received,
    passwords,
    async waitFor(count) {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

function recordingLog(): MailLog & { entries: { level: string; obj: object; msg?: string }[] } {
  const entries: { level: string; obj: object; msg?: string }[] = [];
  return {
    entries,
    info: (obj, msg) => entries.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => entries.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => entries.push({ level: 'error', obj, msg }),
  };
}

async function setup(t: TestContext, deps: Partial<Omit<MailerDeps, 'jobs'>> = {}) {
  const { handle, reopen } = await openTestDatabase(t);
  const log = recordingLog();
  const clock = { now: 1_700_000_000_000 };
  const { mailer, jobs } = mailerOnJobRunner(t, { db: handle.db, clock: () => clock.now, log, masterKey, systemTransport: null, ...deps });
  return { db: handle.db, reopen, log, clock, mailer, jobs };
}

const smtpUrl = (port: number, extra = '') => `smtp://127.0.0.1:${port}${extra}`;

test('transportSettingsFromUrl reads ports, TLS mode and encoded credentials', () => {
  assert.deepEqual(transportSettingsFromUrl('smtp://mail.example.com', FROM), {
    host: 'mail.example.com',
    port: 587,
    secure: false,
    requireTLS: false,
    from: FROM,
  });
  assert.deepEqual(transportSettingsFromUrl('smtps://us%40r:p%40ss%3Aw%2Frd@[::1]?tls=insecure', FROM), {
    host: '::1',
    port: 465,
    secure: true,
    requireTLS: false,
    user: 'us@r',
    pass: 'p@ss:w/rd',
    from: FROM,
    tls: { rejectUnauthorized: false },
  });
  const required = transportSettingsFromUrl('smtp://u:p@h:2525?starttls=required', FROM);
  assert.equal(required.port, 2525);
  assert.equal(required.requireTLS, true);
  assert.throws(() => transportSettingsFromUrl('smtp://h?tls=off', FROM), /tls=/);
  assert.throws(() => transportSettingsFromUrl('smtp://h?foo=1', FROM), /unknown option/);
  assert.throws(() => transportSettingsFromUrl('http://h', FROM), /smtp:\/\//);
});

test('an enqueued message is delivered with from, subject, text and html', async (t) => {
  const smtp = await startSmtp(t);
  const systemTransport = transportSettingsFromUrl(smtpUrl(smtp.port).replace('//', '//mailer:s%40cret@'), FROM);
  const { db, mailer, log, clock } = await setup(t, { systemTransport });

  const id = await mailer.enqueue({
    to: 'viewer@example.com',
    subject: 'Your code\r\nBcc: x@evil.test',
    text: 'Code 123456',
    html: '<p>Code <b>123456</b></p>',
  });
  assert.deepEqual(
    (await listMail(db)).map((row) => [row.id, row.status]),
    [[id, 'pending']],
  );
  assert.equal(await mailer.drain(), 1);

  assert.equal(smtp.received.length, 1);
  assert.deepEqual(smtp.received[0], {
    from: FROM,
    to: 'viewer@example.com',
    subject: 'Your code Bcc: x@evil.test',
    text: 'Code 123456',
    html: '<p>Code <b>123456</b></p>',
    secure: false,
    user: 'mailer',
  });
  assert.deepEqual(smtp.passwords, ['s@cret']);
  const [row] = await listMail(db, { status: 'sent' });
  assert.equal(row?.attempts, 1);
  assert.equal(row?.sent_at, clock.now);
  const [job] = await listJobs(db);
  assert.deepEqual(
    [job?.kind, job?.status, job?.attempts, job?.lease_until, JSON.parse(job?.payload ?? '')],
    [MAIL_JOB, 'done', 1, null, { mailId: id }],
  );
  assert.equal(await mailer.drain(), 0);
  assert.deepEqual(log.entries, []);
  await assert.rejects(mailer.enqueue({ to: 'a@example.com, b@example.com', subject: 's', text: 't' }), TypeError);
});

test('without any transport the message is logged with its text and marked logged', async (t) => {
  const { db, mailer, log } = await setup(t);
  await mailer.enqueue({ to: 'viewer@example.com', subject: 'Your code', text: 'Code 654321' });
  assert.equal(await mailer.drain(), 1);
  assert.equal((await listMail(db, { status: 'logged' })).length, 1);
  assert.equal(log.entries.length, 1);
  assert.equal(log.entries[0]?.level, 'info');
  assert.deepEqual(
    { ...log.entries[0]?.obj, mailId: undefined },
    { mailId: undefined, to: 'viewer@example.com', subject: 'Your code', text: 'Code 654321' },
  );
});

test('enqueue joins the caller transaction: a rollback leaves no message', async (t) => {
  const { db, mailer } = await setup(t);
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await mailer.enqueue({ to: 'viewer@example.com', subject: 'rolled back', text: 't' }, trx);
      throw new Error('abort');
    }),
    /abort/,
  );
  const kept = await db.transaction().execute((trx) => mailer.enqueue({ to: 'viewer@example.com', subject: 'kept', text: 't' }, trx));
  assert.deepEqual(
    (await listMail(db)).map((row) => row.subject),
    ['kept'],
  );
  assert.deepEqual(
    (await listJobs(db)).map((job) => JSON.parse(job.payload)),
    [{ mailId: kept }],
    'the job went with its message',
  );
});

test('a refusing server gets retries with exponential backoff until it accepts', async (t) => {
  const smtp = await startSmtp(t, { reject: (attempt) => attempt <= 2 });
  const { db, mailer, log, clock } = await setup(t, { systemTransport: transportSettingsFromUrl(smtpUrl(smtp.port), FROM) });
  await mailer.enqueue({ to: 'viewer@example.com', subject: 'retry me', text: 't' });

  assert.equal(await mailer.drain(), 1);
  let [row] = await listMail(db);
  assert.equal(row?.status, 'pending');
  assert.equal(row?.attempts, 1);
  assert.equal(row?.next_attempt_at, clock.now + 2_000);
  assert.match(row?.last_error ?? '', /try again later/);
  assert.match(row?.text_body ?? '', /^v1\./, 'the message waits for its retry, sealed');

  clock.now += 1_999;
  assert.equal(await mailer.drain(), 0, 'not due before its backoff');
  clock.now += 1;
  assert.equal(await mailer.drain(), 1);
  [row] = await listMail(db);
  assert.equal(row?.next_attempt_at, clock.now + 4_000);

  clock.now += 4_000;
  assert.equal(await mailer.drain(), 1);
  [row] = await listMail(db);
  assert.equal(row?.status, 'sent');
  assert.equal(row?.attempts, 3);
  assert.equal(row?.last_error, null);
  assert.equal(row?.text_body, '', 'sent: the message is gone');
  assert.equal(smtp.received.length, 1);
  assert.deepEqual(
    log.entries.map((entry) => entry.level),
    ['warn', 'warn'],
  );
});

test('a server not listening yet is retried and gets the message once it is up', async (t) => {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));

  const { db, mailer, clock } = await setup(t, { systemTransport: transportSettingsFromUrl(smtpUrl(port), FROM), backoffMs: () => 10 });
  await mailer.enqueue({ to: 'viewer@example.com', subject: 'early', text: 't' });
  await mailer.drain();
  assert.match((await listMail(db))[0]?.last_error ?? '', /ECONNREFUSED/);

  const smtp = await startSmtp(t, { port });
  clock.now += 10;
  await mailer.drain();
  assert.equal((await listMail(db, { status: 'sent' })).length, 1);
  assert.equal(smtp.received[0]?.subject, 'early');
});

test('after maxAttempts the message is failed, logged as an error, without the SMTP password', async (t) => {
  const smtp = await startSmtp(t, { reject: () => true });
  const systemTransport = transportSettingsFromUrl(`smtp://mailer:hunter2-secret@127.0.0.1:${smtp.port}`, FROM);
  const { db, mailer, log, clock } = await setup(t, { systemTransport, maxAttempts: 3, backoffMs: () => 1 });
  await mailer.enqueue({ to: 'viewer@example.com', subject: 'doomed', text: 't' });
  for (let attempt = 0; attempt < 5; attempt++) {
    await mailer.drain();
    clock.now += 1;
  }
  const [row] = await listMail(db);
  assert.equal(row?.status, 'failed');
  assert.equal(row?.attempts, 3);
  assert.match(row?.last_error ?? '', /try again later/);
  assert.deepEqual(
    log.entries.map((entry) => entry.level),
    ['warn', 'warn', 'error'],
  );
  assert.ok(smtp.passwords.includes('hunter2-secret'));
  assert.doesNotMatch(JSON.stringify(log.entries), /hunter2/);
});

test('STARTTLS and implicit TLS to servers with a self-signed certificate', async (t) => {
  const certificate = await selfSignedCertificate(t, 'localhost', ['DNS:localhost', 'IP:127.0.0.1']);
  if (!requirePeer(t, certificate !== undefined, 'openssl is not installed: apt-get install openssl') || !certificate) return;
  const starttls = await startSmtp(t, { tls: certificate });
  const implicit = await startSmtp(t, { tls: certificate, secure: true });
  const pinned: MailTransportSettings = {
    ...transportSettingsFromUrl(smtpUrl(starttls.port), FROM),
    requireTLS: true,
    tls: { ca: certificate.cert },
  };
  const byAccount = new Map<number, MailTransportSettings>();
  const { db, mailer } = await setup(t, {
    systemTransport: transportSettingsFromUrl(smtpUrl(starttls.port), FROM),
    allowPrivateAccountSmtp: true, // the test servers listen on loopback
    accountTransport: async (accountId) => byAccount.get(accountId) ?? null,
  });
  const accountIds: number[] = [];
  for (const index of [1, 2, 3]) {
    accountIds.push(await insertAccount(db, { email: `tls${index}@example.com`, name: null, plan: 'business', createdAt: 1 }));
  }
  byAccount.set(accountIds[0]!, transportSettingsFromUrl(smtpUrl(starttls.port, '?tls=insecure'), FROM));
  byAccount.set(accountIds[1]!, pinned);
  byAccount.set(accountIds[2]!, transportSettingsFromUrl(`smtps://127.0.0.1:${implicit.port}?tls=insecure`, FROM));

  await mailer.enqueue({ to: 'viewer@example.com', subject: 'unverified', text: 't' });
  for (const [index, accountId] of accountIds.entries()) {
    await mailer.enqueue({ to: 'viewer@example.com', subject: `tls ${index}`, text: 't', accountId });
  }
  await mailer.drain();

  const pending = await listMail(db, { status: 'pending' });
  assert.deepEqual(
    pending.map((row) => row.subject),
    ['unverified'],
    'an unknown certificate is refused by default',
  );
  assert.match(pending[0]?.last_error ?? '', /self[- ]signed|certificate/i);
  assert.deepEqual(starttls.received.map((mail) => [mail.subject, mail.secure]).sort(), [
    ['tls 0', true],
    ['tls 1', true],
  ]);
  assert.deepEqual(
    implicit.received.map((mail) => [mail.subject, mail.secure]),
    [['tls 2', true]],
  );
});

test('two replicas draining one outbox deliver each message exactly once', async (t) => {
  const smtp = await startSmtp(t);
  // Both on the real clock: replicas whose clocks differ by more than the lease would take over each other's leases.
  const { db, reopen, mailer } = await setup(t, { clock: Date.now, systemTransport: transportSettingsFromUrl(smtpUrl(smtp.port), FROM) });
  const { mailer: replica } = mailerOnJobRunner(t, {
    db: reopen().db,
    clock: Date.now,
    log: recordingLog(),
    masterKey,
    systemTransport: transportSettingsFromUrl(smtpUrl(smtp.port), FROM),
  });

  const count = 24;
  for (let index = 0; index < count; index++) {
    await mailer.enqueue({ to: `viewer${index}@example.com`, subject: `message ${index}`, text: 't' });
  }
  const handled = await Promise.all([mailer.drain(), replica.drain(), mailer.drain(), replica.drain()]);
  assert.equal(
    handled.reduce((sum, value) => sum + value, 0),
    count,
  );
  assert.equal(smtp.received.length, count);
  assert.equal(new Set(smtp.received.map((mail) => mail.subject)).size, count);
  const rows = await listMail(db);
  assert.ok(rows.every((row) => row.status === 'sent' && row.attempts === 1));
});

test("an account's own SMTP settings override the system transport", async (t) => {
  const system = await startSmtp(t);
  const own = await startSmtp(t);
  const ownSettings = transportSettingsFromUrl(smtpUrl(own.port), 'Acme <docs@acme.test>');
  let withOwn = 0;
  const { db, mailer } = await setup(t, {
    systemTransport: transportSettingsFromUrl(smtpUrl(system.port), FROM),
    allowPrivateAccountSmtp: true, // the test servers listen on loopback
    accountTransport: async (accountId) => (accountId === withOwn ? ownSettings : null),
  });
  withOwn = await insertAccount(db, { email: 'own@example.com', name: null, plan: 'business', createdAt: 1 });
  const plain = await insertAccount(db, { email: 'plain@example.com', name: null, plan: 'business', createdAt: 1 });

  await mailer.enqueue({ to: 'a@example.com', subject: 'own', text: 't', accountId: withOwn });
  await mailer.enqueue({ to: 'b@example.com', subject: 'account without SMTP', text: 't', accountId: plain });
  await mailer.enqueue({ to: 'c@example.com', subject: 'no account', text: 't' });
  assert.equal(await mailer.drain(), 3);
  assert.deepEqual(
    own.received.map((mail) => [mail.subject, mail.from]),
    [['own', 'Acme <docs@acme.test>']],
  );
  assert.deepEqual(system.received.map((mail) => mail.subject).sort(), ['account without SMTP', 'no account']);
});

test('the loop sends right after enqueue, and a hanging server holds up only its own message', async (t) => {
  const fast = await startSmtp(t);
  // Accepts connections and never greets: the SMTP client waits on it.
  const sockets = new Set<net.Socket>();
  const hanging = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => hanging.close(resolve)));
  const hangingSettings = transportSettingsFromUrl(smtpUrl((hanging.address() as net.AddressInfo).port), FROM);

  let slowAccount = 0;
  const { db, mailer, jobs } = await setup(t, {
    clock: Date.now,
    systemTransport: transportSettingsFromUrl(smtpUrl(fast.port), FROM),
    allowPrivateAccountSmtp: true, // the test servers listen on loopback
    accountTransport: async (accountId) => (accountId === slowAccount ? hangingSettings : null),
  });
  slowAccount = await insertAccount(db, { email: 'slow@example.com', name: null, plan: 'business', createdAt: 1 });
  jobs.start();

  await mailer.enqueue({ to: 'a@example.com', subject: 'stuck', text: 't', accountId: slowAccount });
  await mailer.enqueue({ to: 'b@example.com', subject: 'fast 1', text: 't' });
  await mailer.enqueue({ to: 'c@example.com', subject: 'fast 2', text: 't' });
  await fast.waitFor(2);
  assert.deepEqual(fast.received.map((mail) => mail.subject).sort(), ['fast 1', 'fast 2']);
  assert.equal(sockets.size, 1, 'the stuck message is still waiting for its greeting');

  // Refuse with a reply rather than dropping the socket: nodemailer leaves its greeting timer running
  // after an unexpected close, which would keep the test process alive for 10 s.
  for (const socket of sockets) socket.end('421 too busy\r\n');
  await jobs.stop();
  const stuck = await listMail(db, { to: 'a@example.com' });
  assert.equal(stuck[0]?.status, 'pending');
  assert.ok(stuck[0]?.last_error, 'the broken connection was recorded for a retry');
});
