import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { testEnv } from '../../../test/helpers/app.js';
import { selfSignedCertificate } from '../../../test/helpers/certificates.js';
import { mailerOnJobRunner } from '../../../test/helpers/mailer.js';
import { startSmtp } from '../../../test/helpers/smtp.js';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../../db/kysely.js';
import { insertAccount } from '../../modules/accounts/accounts.repo.js';
import type { MailLog } from './mailer.js';
import { listMail } from './outbox.repo.js';
import { pinToPublicAddress, RefusedSmtpHostError, smtpHostRefusal, type HostLookup } from './smtp-destination.js';
import { createTransportCache, transportSettingsFromUrl, type MailTransportSettings } from './transport.js';
import { requirePeer } from '../../../test/helpers/requirements.js';

const FROM = 'Acme <docs@acme.test>';
const settingsFor = (host: string, extra: Partial<MailTransportSettings> = {}): MailTransportSettings => ({
  host,
  port: 587,
  secure: false,
  requireTLS: true,
  user: 'mailer',
  pass: 'hunter2-secret',
  from: FROM,
  ...extra,
});
const resolvesTo =
  (...addresses: string[]): HostLookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

test('refused: private, loopback, link-local and unspecified literals in any notation, and localhost names', () => {
  const refused = [
    '127.0.0.1',
    '[::1]',
    '::1',
    '0.0.0.0',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.1',
    'localhost',
    'localhost.',
    'LocalHost',
    'db.localhost',
    '10.0.0.1',
    '169.254.169.254',
    '[::ffff:127.0.0.1]',
    '::ffff:7f00:1',
    'fe80::1%eth0',
    'fc00::25',
    '%31%32%37.0.0.1',
  ];
  for (const host of refused) assert.notEqual(smtpHostRefusal(host), null, host);
  for (const host of ['smtp.gmail.com', '8.8.8.8', '2606:4700:4700::1111', '[2a00:1450:4001:80b::200e]'])
    assert.equal(smtpHostRefusal(host), null, host);
});

test('a name is resolved when connecting, refused if any address is not public, else pinned to the address checked', async () => {
  await assert.rejects(pinToPublicAddress(settingsFor('smtp.acme.test'), resolvesTo('127.0.0.1')), RefusedSmtpHostError);
  await assert.rejects(
    pinToPublicAddress(settingsFor('smtp.acme.test'), resolvesTo('93.184.216.34', '10.1.2.3')),
    (error: Error) => /smtp\.acme\.test resolves to an address that is not public$/.test(error.message) && !error.message.includes('10.1.2.3'),
  );
  await assert.rejects(pinToPublicAddress(settingsFor('smtp.acme.test'), resolvesTo('::ffff:169.254.169.254')), RefusedSmtpHostError);
  let looked = 0;
  await assert.rejects(
    pinToPublicAddress(settingsFor('2130706433'), async () => {
      looked++;
      return [];
    }),
    /127\.0\.0\.1 is not a public address/,
  );
  await assert.rejects(
    pinToPublicAddress(settingsFor('mail.localhost.'), async () => {
      looked++;
      return [];
    }),
    RefusedSmtpHostError,
  );
  assert.equal(looked, 0, 'literals and localhost names are refused without a lookup');
  await assert.rejects(
    pinToPublicAddress(settingsFor('gone.acme.test'), resolvesTo()),
    (error: Error) => !(error instanceof RefusedSmtpHostError),
    'no address: an ordinary, retried failure',
  );

  const pinned = await pinToPublicAddress(settingsFor('SMTP.Acme.test', { tls: { ca: 'PEM' } }), resolvesTo('2606:4700:4700::1111', '93.184.216.34'));
  assert.deepEqual(pinned, { ...settingsFor('93.184.216.34'), tls: { ca: 'PEM', servername: 'smtp.acme.test' } });
  assert.deepEqual(await pinToPublicAddress(settingsFor('8.8.8.8'), resolvesTo()), settingsFor('8.8.8.8'));
});

function recordingLog(): MailLog & { entries: Array<{ level: string; obj: object; msg?: string }> } {
  const entries: Array<{ level: string; obj: object; msg?: string }> = [];
  return {
    entries,
    info: (obj, msg) => entries.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => entries.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => entries.push({ level: 'error', obj, msg }),
  };
}

test('the mailer fails a refused message at once, logs the account, and never sends it through the system server', async (t) => {
  const system = await startSmtp(t);
  const handle = openDatabase(loadConfig(await testEnv(t)).database);
  t.after(() => handle.close());
  await handle.migrate();
  const accountId = await insertAccount(handle.db, { email: 'own@example.com', name: null, plan: 'business', createdAt: 1 });
  const log = recordingLog();
  const { mailer } = mailerOnJobRunner(t, {
    db: handle.db,
    clock: Date.now,
    log,
    masterKey: randomBytes(32),
    systemTransport: transportSettingsFromUrl(system.url, 'linkvault <no-reply@linkvault.test>'),
    accountTransport: async () => settingsFor('rebound.acme.test'),
    lookupAccountSmtpHost: resolvesTo('127.0.0.1'),
  });
  await mailer.enqueue({ to: 'viewer@example.com', subject: 'refused', text: 't', accountId });
  assert.equal(await mailer.drain(), 1);
  assert.equal(await mailer.drain(), 0, 'not retried');
  const [row] = await listMail(handle.db);
  assert.equal(row?.status, 'failed');
  assert.equal(row?.attempts, 1);
  assert.match(row?.last_error ?? '', /rebound\.acme\.test resolves to an address that is not public/);
  assert.equal(system.received.length, 0);
  assert.deepEqual(
    log.entries.map((entry) => entry.level),
    ['warn'],
  );
  assert.equal((log.entries[0]!.obj as { accountId?: number }).accountId, accountId);
  assert.doesNotMatch(JSON.stringify(log.entries), /hunter2/);
});

test('connected to a pinned address, TLS still verifies the certificate against the server name', async (t) => {
  const certificate = await selfSignedCertificate(t, 'mail.acme.test', ['DNS:mail.acme.test']);
  if (!requirePeer(t, certificate !== undefined, 'openssl is not installed: apt-get install openssl') || !certificate) return;
  const accepted: string[] = [];
  const server = new SMTPServer({
    ...certificate,
    logger: false,
    authOptional: true,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => callback());
    },
    onMailFrom(_address, _session, callback) {
      accepted.push('mail');
      callback();
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.server.address() as AddressInfo).port;
  const transports = createTransportCache();
  t.after(() => transports.closeAll());
  const send = (servername: string) =>
    transports
      .get({ host: '127.0.0.1', port, secure: false, requireTLS: true, from: FROM, tls: { ca: certificate.cert, servername } })
      .sendMail({ from: FROM, to: 'viewer@example.com', subject: 's', text: 't' });

  await send('mail.acme.test');
  assert.equal(accepted.length, 1, 'the certificate of the name matched');
  await assert.rejects(send('other.acme.test'), /altnames|does not match|certificate/i);
  assert.equal(accepted.length, 1, 'nothing sent under another name');
});
