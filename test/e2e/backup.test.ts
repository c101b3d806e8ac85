import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { downloadThrough, emptyDir, restoreTargetOf, serverWithOneFile } from '../helpers/backups.js';
import { sha256 } from '../helpers/files.js';
import { runCli, startServerProcess } from '../helpers/process.js';

const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

test('backup while the server runs, restore into a fresh DATA_DIR, and the file downloads intact', async (t) => {
  const env = await testEnv(t);
  const { server, apiKey, linkId, content } = await serverWithOneFile(t, env);
  const backupDir = path.join(await emptyDir(t, 'linkvault-backup-'), 'nightly');

  const made = await runCli(['backup', '--to', backupDir], env);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /backup written to/);
  assert.match(made.stderr, /master key is NOT in this backup/, 'the loud warning about the key');
  const manifest = JSON.parse(await fs.readFile(path.join(backupDir, 'manifest.json'), 'utf8'));
  assert.equal(manifest.format, 'linkvault-backup');
  assert.equal(manifest.database.rows.links, 1);
  assert.equal(manifest.storage.blobs, 1);
  assert.equal(manifest.masterKey.included, false);
  assert.match(manifest.signature, /^[0-9a-f]{64}$/, 'signed under the master key');
  assert.match(manifest.database.latestMigration, /^\d{4}-/);
  await assert.rejects(fs.stat(path.join(backupDir, 'master.key')), { code: 'ENOENT' });

  const again = await runCli(['backup', '--to', backupDir], env);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /is not empty/);

  const fresh = await restoreTargetOf(t, env, { MASTER_KEY: env.MASTER_KEY! });
  if (onPostgres) {
    // The database travels through pg_dump: the backup says how, without the password.
    assert.match(made.stdout, /pg_dump --format=custom --no-owner .*--dbname=\S+ .*--file=/);
    assert.doesNotMatch(made.stdout, /:[^/@\s]*@/, 'no password in the guidance');
    const dump = manifest.files.find((file: { path: string }) => file.path === 'database.pgdump');
    assert.ok(dump?.size > 0, 'the backup dumps the database itself, before it copies the blobs');
    const refused = await runCli(['restore', '--from', backupDir], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /not empty|already holds tables/);
    const otherSchema = await testEnv(t, { MASTER_KEY: env.MASTER_KEY! });
    const elsewhere = await runCli(['restore', '--from', backupDir], otherSchema);
    assert.equal(elsewhere.code, 1, elsewhere.stdout);
    assert.match(elsewhere.stderr, /the backup's database is in the schema t_\w+, but DATABASE_URL names t_\w+/);
    assert.deepEqual(await fs.readdir(otherSchema.DATA_DIR!), [], 'refused before anything was written');
    const withoutClientTools = await runCli(['restore', '--from', backupDir], { ...fresh, PATH: path.join(backupDir, 'nothing-here') });
    assert.equal(withoutClientTools.code, 1, withoutClientTools.stdout);
    assert.match(withoutClientTools.stderr, /pg_restore cannot read the backup's database dump \(pg_restore is not on PATH\)/);
    assert.deepEqual(await fs.readdir(fresh.DATA_DIR!), [], 'refused before anything was written');
  }

  const restored = await runCli(['restore', '--from', backupDir], fresh);
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /restore finished: 1 links, 1 blobs/);
  if (onPostgres) assert.match(restored.stdout, /restored the database \(migration \d{4}-.*\) with: pg_restore --no-owner --single-transaction/);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);

  const revived = await startServerProcess(t, fresh);
  const body = await downloadThrough(revived.url, apiKey, linkId);
  assert.equal(sha256(body), sha256(content), 'the restored file is byte for byte the uploaded one');

  const twice = await runCli(['restore', '--from', backupDir], fresh);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /DATA_DIR .* is not empty/);

  if (onPostgres) {
    const dumpCommand = /(pg_dump .*)/.exec(made.stdout)![1]!;
    await fs.rm(path.join(backupDir, 'database.pgdump'));
    const dumped = await promisify(execFile)('sh', ['-c', dumpCommand]).then(
      () => 0,
      (error: { code?: number }) => error.code ?? 1,
    );
    assert.equal(dumped, 0, `the printed command runs: ${dumpCommand}`);
    assert.ok((await fs.stat(path.join(backupDir, 'database.pgdump'))).size > 0);
  }
});

test('restore refuses a damaged backup, a wrong master key, and what is not a backup; --include-master-key carries the key', async (t) => {
  const env = await testEnv(t);
  const { server } = await serverWithOneFile(t, env);
  const root = await emptyDir(t, 'linkvault-backup-');
  const withKey = path.join(root, 'with-key');
  const made = await runCli(['backup', '--to', withKey, '--include-master-key'], env);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stderr, /INCLUDES the master key/);
  server.child.kill('SIGTERM');
  await server.exited;
  assert.equal((await fs.readFile(path.join(withKey, 'master.key'), 'utf8')).trim(), Buffer.from(env.MASTER_KEY!, 'base64').toString('base64'));

  const notBackup = await runCli(['restore', '--from', root], await testEnv(t));
  assert.equal(notBackup.code, 1);
  assert.match(notBackup.stderr, /holds no manifest\.json/);

  const wrongKey = await runCli(['restore', '--from', withKey], await restoreTargetOf(t, env));
  assert.equal(wrongKey.code, 1);
  assert.match(
    wrongKey.stderr,
    /this backup's manifest is not signed by this server's master key: it was changed after it was made, or made by another server \(it names the master key of fingerprint [0-9a-f]{16}: if the backup is yours, set MASTER_KEY to that key\)/,
  );

  const damaged = path.join(root, 'damaged');
  await fs.cp(withKey, damaged, { recursive: true });
  const manifest = JSON.parse(await fs.readFile(path.join(damaged, 'manifest.json'), 'utf8'));
  const blob = path.join(damaged, manifest.files.find((file: { path: string }) => file.path.startsWith('blobs/')).path);
  const bytes = await fs.readFile(blob);
  bytes[100]! ^= 1;
  await fs.writeFile(blob, bytes);
  const keyless = await restoreTargetOf(t, env);
  delete keyless.MASTER_KEY;
  const refused = await runCli(['restore', '--from', damaged], keyless);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /damaged: 1 file\(s\) missing or not matching their checksum \(blobs\/links\//);
  assert.deepEqual(await fs.readdir(keyless.DATA_DIR!), [], 'nothing was written');

  if (onPostgres) return; // the PostgreSQL round trip is the first test's
  const restored = await runCli(['restore', '--from', withKey], keyless);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(
    (await fs.readFile(path.join(keyless.DATA_DIR!, 'master.key'), 'utf8')).trim(),
    Buffer.from(env.MASTER_KEY!, 'base64').toString('base64'),
    'the key file is restored when no MASTER_KEY is set',
  );
  const doctor = await runCli(['doctor', '--json'], keyless);
  assert.equal(doctor.code, 0, doctor.stdout);
  const masterKey = JSON.parse(doctor.stdout).checks.find((check: { check: string }) => check.check === 'master key');
  assert.equal(masterKey.status, 'ok');
  assert.match(masterKey.message, /decrypts stored files/);
});

const modeOf = async (file: string) => (await fs.stat(file)).mode & 0o777;

test('under umask 022 the data folder, the database, the master key and a backup are the owner’s alone, and a restore keeps them so', async (t) => {
  // As a default Linux login has it: every process this test starts inherits it.
  const umask = process.umask(0o022);
  t.after(() => process.umask(umask));
  const root = await emptyDir(t, 'linkvault-modes-');
  const env = await testEnv(t, { DATA_DIR: path.join(root, 'data') });
  delete env.MASTER_KEY; // the first start makes DATA_DIR/master.key
  const { server } = await serverWithOneFile(t, env);
  const database = path.join(env.DATA_DIR!, 'linkvault.db');
  const masterKey = path.join(env.DATA_DIR!, 'master.key');
  assert.equal(await modeOf(env.DATA_DIR!), 0o700, 'DATA_DIR, made by the first command');
  assert.equal(await modeOf(masterKey), 0o600);
  if (!onPostgres) {
    for (const file of [database, `${database}-wal`, `${database}-shm`]) assert.equal(await modeOf(file), 0o600, file);
  }

  const backupDir = path.join(root, 'backups', 'nightly');
  const made = await runCli(['backup', '--to', backupDir, '--include-master-key'], env);
  assert.equal(made.code, 0, made.stderr);
  assert.equal(await modeOf(backupDir), 0o700);
  const backedUp = (await fs.readdir(backupDir, { withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name);
  assert.deepEqual(backedUp.sort(), [onPostgres ? 'database.pgdump' : 'database.sqlite', 'manifest.json', 'master.key']);
  for (const name of backedUp) assert.equal(await modeOf(path.join(backupDir, name)), 0o600, name);

  const fresh = await restoreTargetOf(t, env, { DATA_DIR: path.join(root, 'restored') });
  delete fresh.MASTER_KEY;
  const restored = await runCli(['restore', '--from', backupDir], fresh);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(await modeOf(fresh.DATA_DIR!), 0o700);
  assert.equal(await modeOf(path.join(fresh.DATA_DIR!, 'master.key')), 0o600);
  if (!onPostgres) assert.equal(await modeOf(path.join(fresh.DATA_DIR!, 'linkvault.db')), 0o600);

  // Files an earlier release left open to others: the doctor reports them, and a start narrows the database.
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  await fs.chmod(masterKey, 0o640);
  if (!onPostgres) await fs.chmod(database, 0o644);
  const doctor = await runCli(['doctor', '--json'], env);
  assert.equal(doctor.code, 1, doctor.stdout);
  const checks = Object.fromEntries(JSON.parse(doctor.stdout).checks.map((check: { check: string }) => [check.check, check]));
  assert.equal(checks['master key'].status, 'FAIL');
  assert.match(checks['master key'].message, /master\.key \(0640\) can be read by group or others: chmod 600 /);
  if (onPostgres) return;
  assert.equal(checks.database.status, 'FAIL');
  assert.match(checks.database.message, /linkvault\.db \(0644\) can be read by group or others/);
  assert.equal(await modeOf(database), 0o644, 'the doctor changes nothing');
  const again = await startServerProcess(t, env);
  await again.waitForOutput(/the database was readable by group or others: narrowed to 0600/);
  assert.equal(await modeOf(database), 0o600);
});

test('data folders an earlier release left open to others (their names are link ids) fail the doctor and are told at start, not changed', async (t) => {
  const umask = process.umask(0o022);
  t.after(() => process.umask(umask));
  const root = await emptyDir(t, 'linkvault-folders-');
  const env = await testEnv(t, { DATA_DIR: path.join(root, 'data') });
  delete env.STORAGE_URL; // the blobs in DATA_DIR/blobs, as a default install keeps them
  const { server } = await serverWithOneFile(t, env);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  const blobs = path.join(env.DATA_DIR!, 'blobs');
  for (const folder of [env.DATA_DIR!, blobs]) await fs.chmod(folder, 0o755);

  const doctor = await runCli(['doctor', '--json'], env);
  assert.equal(doctor.code, 1, doctor.stdout);
  const checks = Object.fromEntries(JSON.parse(doctor.stdout).checks.map((check: { check: string }) => [check.check, check]));
  assert.equal(checks.storage.status, 'FAIL');
  assert.match(checks.storage.message, /blobs \(0755\) can be read by group or others: chmod 700 /);
  assert.equal(checks['master key'].status, 'FAIL');
  assert.match(checks['master key'].message, /data \(0755\) can be read by group or others: chmod 700 /);

  const again = await startServerProcess(t, env);
  await again.waitForOutput(/a data folder can be listed by group or others, who would learn link ids from it: chmod 700 it/);
  for (const folder of [env.DATA_DIR!, blobs]) assert.equal(await modeOf(folder), 0o755, 'the operator may share it on purpose');
});
