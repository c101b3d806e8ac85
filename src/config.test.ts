import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { selfSignedCertificate } from '../test/helpers/certificates.js';
import { ConfigError, loadConfig } from './config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('.env.example lists every variable the configuration reads, and loads as it is', () => {
  const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
  const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));
  const source = fs.readFileSync(path.join(root, 'src', 'config.ts'), 'utf8');
  const read = new Set([...source.matchAll(/env(?:\.|, ')([A-Z][A-Z0-9_]+)/g)].map((match) => match[1]));
  assert.ok(read.size >= 25, `found the variables config.ts reads (${read.size})`);
  assert.deepEqual(
    [...read].filter((name) => !listed.has(name)),
    [],
    'variables missing from .env.example',
  );

  const env = Object.fromEntries([...example.matchAll(/^([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]));
  const config = loadConfig(env);
  assert.equal(config.port, 3000);
  assert.equal(config.database.kind, 'sqlite');
  assert.equal(config.metricsToken, undefined);
});

/** The one sentence loadConfig refuses `env` with. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`);
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

test('DATABASE_URL must name an SQLite file: an empty sqlite: or a folder is refused before anything is opened', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'linkvault-config-'));
  try {
    fs.chmodSync(folder, 0o755);
    assert.match(refusal({ DATABASE_URL: 'sqlite:' }), /^DATABASE_URL must name the database file after sqlite:/);
    assert.match(refusal({ DATABASE_URL: 'sqlite://' }), /^DATABASE_URL must name the database file after sqlite:/);
    assert.equal(
      refusal({ DATABASE_URL: `sqlite:${folder}` }),
      `DATABASE_URL names the folder ${folder}: name the database file in it, such as sqlite:${path.join(folder, 'linkvault.db')}`,
    );
    assert.equal(fs.statSync(folder).mode & 0o777, 0o755, 'the folder is left as it was');
    assert.deepEqual(loadConfig({ DATABASE_URL: `sqlite:${folder}/linkvault.db` }).database, {
      kind: 'sqlite',
      file: path.join(folder, 'linkvault.db'),
    });
  } finally {
    fs.rmSync(folder, { recursive: true });
  }
});

test('PUBLIC_URL is a plain http(s) base: credentials, a query, a fragment or another scheme are refused, saying what to remove', () => {
  assert.equal(
    refusal({ PUBLIC_URL: 'https://user:secret@share.example.com' }),
    'PUBLIC_URL must not carry a user or password: remove the "user:pass@"',
  );
  assert.equal(refusal({ PUBLIC_URL: 'https://user@share.example.com' }), 'PUBLIC_URL must not carry a user or password: remove the "user:pass@"');
  assert.equal(refusal({ PUBLIC_URL: 'https://share.example.com/?ref=1' }), 'PUBLIC_URL must not carry a query: remove the "?" and what follows it');
  assert.equal(refusal({ PUBLIC_URL: 'https://share.example.com/?' }), 'PUBLIC_URL must not carry a query: remove the "?" and what follows it');
  assert.equal(refusal({ PUBLIC_URL: 'https://share.example.com/#top' }), 'PUBLIC_URL must not carry a fragment: remove the "#" and what follows it');
  assert.equal(refusal({ PUBLIC_URL: 'ftp://share.example.com' }), 'PUBLIC_URL must be a URL starting with http: or https:');
  assert.equal(
    refusal({ PUBLIC_URL: 'https://share.example.com/files/' }),
    'PUBLIC_URL must be the root of its host, without a path ("/files/"): serve linkvault on a host name of its own',
  );
  assert.equal(loadConfig({ PUBLIC_URL: 'https://share.example.com/' }).publicUrl, 'https://share.example.com');
});

test('TRUST_PROXY: a number of hops (1-9), or addresses and CIDR ranges that are ones; "10" or "1.5" is refused, not read as an address', () => {
  for (const bad of ['10', '1.5', '10.0.0.0/99', 'fd00::/129', '10.0.0.1/8/8', 'maybe']) {
    assert.match(refusal({ TRUST_PROXY: bad }), /^TRUST_PROXY must be 0, the number of proxies in front \(1-9\)/, bad);
  }
  assert.equal(loadConfig({ TRUST_PROXY: '3' }).trustProxy, 3);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.7, fd00::/8' }).trustProxy, ['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);
});

test('HOST must be an IP address or a host name', () => {
  for (const bad of ['not a host', 'http://0.0.0.0', '0.0.0.0:3000', '[::1]', 'host!', '999.1.1.1']) {
    assert.equal(refusal({ HOST: bad }), `HOST must be an IP address or a host name to listen on, such as 127.0.0.1, 0.0.0.0 or :: (got "${bad}")`);
  }
  for (const good of ['0.0.0.0', '::', '::1', 'localhost', 'linkvault_app', 'share.internal']) assert.equal(loadConfig({ HOST: good }).host, good);
});

test('WEBHOOK_CA_FILE must be a readable file of PEM certificates', async (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'linkvault-config-'));
  t.after(() => fs.rmSync(folder, { recursive: true }));
  const refused = (file: string, why: string) =>
    assert.equal(refusal({ WEBHOOK_CA_FILE: file }), `WEBHOOK_CA_FILE ${file} ${why}: name a readable PEM file or leave WEBHOOK_CA_FILE unset`);
  refused(path.join(folder, 'missing.pem'), 'does not exist');
  refused(folder, 'is a folder');
  const write = (name: string, text: string) => {
    fs.writeFileSync(path.join(folder, name), text);
    return path.join(folder, name);
  };
  refused(write('empty.pem', ''), 'holds no certificate (-----BEGIN CERTIFICATE-----)');
  refused(
    write('key.pem', '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n'),
    'holds no certificate (-----BEGIN CERTIFICATE-----)',
  );

  const certificate = await selfSignedCertificate(t, 'hooks.internal', ['DNS:hooks.internal']);
  if (!certificate) return t.skip('openssl is not installed');
  const bundle = write('ca.pem', certificate.cert + certificate.cert);
  assert.equal(
    loadConfig({ WEBHOOK_CA_FILE: bundle }).webhookCa,
    `${certificate.cert.trim()}\n${certificate.cert.trim()}`,
    'the certificates, read once',
  );
  refused(
    write('damaged.pem', certificate.cert + '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n'),
    'holds a certificate that cannot be read (number 2 of 2)',
  );
});

test('MASTER_KEY: 64 hex characters or the base64 of 32 bytes, read strictly; stray characters are refused, not skipped', () => {
  const key = Buffer.alloc(32, 7);
  assert.deepEqual(loadConfig({ MASTER_KEY: key.toString('hex') }).masterKey, key);
  assert.deepEqual(loadConfig({ MASTER_KEY: key.toString('base64') }).masterKey, key);
  assert.deepEqual(
    loadConfig({ MASTER_KEY: ` ${key.toString('base64').replace(/=$/, '')}\n` }).masterKey,
    key,
    'padding optional, spaces around trimmed',
  );
  for (const bad of [
    `${key.toString('base64')}!!!!`,
    key.toString('base64url').replace(/=$/, '').replace(/.$/, '-'),
    key.toString('hex').slice(1),
    'short',
  ]) {
    assert.equal(refusal({ MASTER_KEY: bad }), 'MASTER_KEY must be 32 bytes written as 64 hex characters or base64', bad);
  }
});
