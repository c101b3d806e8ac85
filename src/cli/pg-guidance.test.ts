import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { pgDumpArguments, pgDumpCommand, pgEnvironment, pgRestoreArguments, pgRestoreCommand } from './pg-guidance.js';
import { runPostgresTool } from './pg-tools.js';

const verified =
  'postgres://backup:s%40cret@db.example.com:6432/linkvault' +
  '?sslmode=verify-full&sslrootcert=%2Fetc%2Fpg%20ca%2Froot.crt&sslcert=/etc/pg/client.crt&sslkey=/etc/pg/client.key&sslcrl=/etc/pg/root.crl' +
  '&channel_binding=require&application_name=linkvault&uselibpqcompat=true&constructor=x&options=-c%20search_path%3Dlv';

test('the URL’s TLS settings and password go to the tools’ environment, and nothing else of its query does', () => {
  assert.deepEqual(pgEnvironment(verified), {
    PGSSLMODE: 'verify-full',
    PGSSLROOTCERT: '/etc/pg ca/root.crt',
    PGSSLCERT: '/etc/pg/client.crt',
    PGSSLKEY: '/etc/pg/client.key',
    PGSSLCRL: '/etc/pg/root.crl',
    PGCHANNELBINDING: 'require',
    PGPASSWORD: 's@cret',
  });
  assert.deepEqual(pgEnvironment('postgres://root@127.0.0.1:5432/test'), {}, 'no password, no TLS: the environment is left as it is');
});

test('neither the argv nor the printed commands carry the password; the printed ones carry the TLS settings as assignments', () => {
  const argvs = [pgDumpArguments(verified, '/backups/database.pgdump'), pgRestoreArguments(verified, '/backups/database.pgdump', '/tmp/list')];
  for (const argv of argvs) {
    assert.ok(argv.includes('--host=db.example.com') && argv.includes('--port=6432') && argv.includes('--username=backup'), argv.join(' '));
    assert.ok(!argv.some((arg) => /s@cret|s%40cret|ssl|verify-full/.test(arg)), argv.join(' '));
  }
  const dump = pgDumpCommand(verified, '/backups/database.pgdump');
  assert.equal(
    dump,
    "PGSSLMODE=verify-full PGSSLROOTCERT='/etc/pg ca/root.crt' PGSSLCERT=/etc/pg/client.crt PGSSLKEY=/etc/pg/client.key PGSSLCRL=/etc/pg/root.crl PGCHANNELBINDING=require " +
      'pg_dump --format=custom --no-owner --host=db.example.com --port=6432 --username=backup --dbname=linkvault --schema=lv --file=/backups/database.pgdump',
  );
  assert.match(pgRestoreCommand(verified, '/backups/database.pgdump'), /^PGSSLMODE=verify-full .* pg_restore --no-owner --single-transaction /);
  for (const command of [dump, pgRestoreCommand(verified, '/backups/database.pgdump')]) assert.doesNotMatch(command, /cret/);
  assert.match(pgDumpCommand('postgres://root@127.0.0.1:5432/test', '/b/d'), /^pg_dump /, 'no TLS settings: the command as before');
});

/** A stand-in pg_dump on PATH that prints its environment's PG variables and its arguments. */
async function fakePgDump(t: TestContext): Promise<string> {
  const bin = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-fake-pg-'));
  t.after(() => fs.rm(bin, { recursive: true, force: true }));
  await fs.writeFile(path.join(bin, 'pg_dump'), '#!/bin/sh\nenv | grep "^PG" | sort\necho "argv: $*"\n', { mode: 0o755 });
  return bin;
}

test('runPostgresTool hands the tool the URL’s TLS settings and password in its environment, and the printed command does the same', async (t) => {
  const bin = await fakePgDump(t);
  const searchPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${searchPath}`;
  t.after(() => {
    process.env.PATH = searchPath;
  });
  const ran = await runPostgresTool('pg_dump', pgDumpArguments(verified, '/backups/database.pgdump'), verified, (reason) => reason);
  for (const line of ['PGSSLMODE=verify-full', 'PGSSLROOTCERT=/etc/pg ca/root.crt', 'PGSSLKEY=/etc/pg/client.key', 'PGPASSWORD=s@cret']) {
    assert.ok(ran.split('\n').includes(line), `${line} in:\n${ran}`);
  }
  assert.doesNotMatch(/argv: .*/.exec(ran)![0], /cret|ssl/i);

  const typed = await promisify(execFile)('sh', ['-c', pgDumpCommand(verified, '/backups/database.pgdump')], { env: { PATH: process.env.PATH } });
  assert.ok(typed.stdout.split('\n').includes('PGSSLROOTCERT=/etc/pg ca/root.crt'), typed.stdout);
  assert.ok(!typed.stdout.includes('PGPASSWORD='), 'the printed command leaves the password to PGPASSWORD or ~/.pgpass');
});
