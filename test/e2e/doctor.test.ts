import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { startApp, testEnv } from '../helpers/app.js';
import { createLink } from '../helpers/files.js';
import { runCli } from '../helpers/process.js';

interface Check {
  check: string;
  status: 'ok' | 'warn' | 'FAIL';
  message: string;
}

async function doctor(env: Record<string, string>) {
  const result = await runCli(['doctor', '--json'], env);
  const report = JSON.parse(result.stdout) as { ok: boolean; checks: Check[] };
  const byName = Object.fromEntries(report.checks.map((check) => [check.check, check]));
  return { code: result.code, report, byName };
}

/** A loopback port that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('doctor: a healthy setup passes every check, and opens a stored file with the master key', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount();
  await createLink(http, Buffer.from(randomBytes(40_000).toString('hex')), 'notes.txt');

  const { code, report, byName } = await doctor(app.env);
  assert.equal(code, 0, JSON.stringify(report, null, 2));
  assert.equal(report.ok, true);
  assert.deepEqual(
    report.checks.map((check) => check.check),
    ['configuration', 'database', 'migrations', 'storage', 'master key', 'smtp', 'redis', 'converter'],
  );
  assert.equal(byName.migrations!.status, 'ok');
  assert.match(byName.storage!.message, /is a folder this user can read and write \(looked at only, nothing written\)/);
  assert.match(byName['master key']!.message, /decrypts stored files/);
  assert.equal(byName.redis!.status, 'ok', byName.redis!.message);
  assert.notEqual(byName.converter!.status, 'FAIL', 'a missing LibreOffice is a warning');

  // The text form: one line per check, status first.
  const text = await runCli(['doctor'], app.env);
  assert.equal(text.code, 0, text.stdout + text.stderr);
  const lines = text.stdout.trim().split('\n');
  assert.equal(lines.length, 8);
  assert.match(lines[0]!, /^ok\s+configuration\s+DATA_DIR /);

  // A migration this code does not know: the database was written by a newer linkvault.
  const { db } = app.runtime.database;
  await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2099-01-01T00:00:00.000Z')`.execute(db);
  const newer = await doctor(app.env);
  assert.equal(newer.code, 1);
  assert.equal(newer.byName.migrations!.status, 'FAIL');
  assert.match(newer.byName.migrations!.message, /records 9999-from-the-future, which this linkvault does not know/);
  await sql`delete from kysely_migration where name = '9999-from-the-future'`.execute(db);
});

test('doctor: each broken part exits 1 and names its check', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount();
  await createLink(http, 'a stored file', 'notes.txt');
  // Storage under a regular file: nothing can be written there (permissions would not stop root).
  const blocker = path.join(app.dataDir, 'not-a-folder');
  await fs.writeFile(blocker, '');
  const port = await closedPort();

  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['master key', { MASTER_KEY: randomBytes(32).toString('base64') }, /does not open the file key of link/],
    ['storage', { STORAGE_URL: `file://${blocker}/blobs` }, /cannot look at .*ENOTDIR/],
    ['smtp', { SMTP_URL: `smtp://127.0.0.1:${port}` }, /SMTP server 127\.0\.0\.1:\d+: .*ECONNREFUSED|connect/i],
    ['redis', { REDIS_URL: `redis://127.0.0.1:${port}/0` }, /Redis at 127\.0\.0\.1:\d+/],
    ['converter', { SOFFICE_PATH: path.join(app.dataDir, 'no-soffice') }, /is not an executable file/],
  ];
  // Each run is a process of its own: they start side by side.
  const runs = await Promise.all(cases.map(([, broken]) => doctor({ ...app.env, ...broken })));
  for (const [index, [name, broken, message]] of cases.entries()) {
    const { code, report, byName } = runs[index]!;
    assert.equal(code, 1, `${JSON.stringify(broken)}: ${JSON.stringify(report)}`);
    assert.equal(byName[name]!.status, 'FAIL', JSON.stringify(report));
    assert.match(byName[name]!.message, message);
    const failed = report.checks.filter((check) => check.status === 'FAIL').map((check) => check.check);
    assert.deepEqual(failed, [name], `only the broken part fails: ${JSON.stringify(report.checks)}`);
  }

  // The text form names the failing check at the start of its line.
  const text = await runCli(['doctor'], { ...app.env, MASTER_KEY: randomBytes(32).toString('base64') });
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^FAIL\s+master key\s+the key from MASTER_KEY does not open/m);
});

test('doctor: pending migrations and a bad configuration value fail', async (t) => {
  const env = await testEnv(t);
  // A database that exists but was never migrated (an empty SQLite file, owner-only as linkvault makes it; on PostgreSQL, the fresh schema).
  if (!env.DATABASE_URL) await fs.writeFile(path.join(env.DATA_DIR!, 'linkvault.db'), '', { mode: 0o600 });
  const pending = await doctor(env);
  assert.equal(pending.code, 1);
  assert.equal(pending.byName.database!.status, 'ok');
  assert.equal(pending.byName.migrations!.status, 'FAIL');
  assert.match(pending.byName.migrations!.message, /pending .*run `linkvault migrate`/);

  const badConfig = await doctor({ ...env, PORT: 'eighty' });
  assert.equal(badConfig.code, 1);
  assert.deepEqual(badConfig.report.checks, [
    { check: 'configuration', status: 'FAIL', message: 'PORT must be an integer from 0 to 65535 (got "eighty")' },
  ]);
});
