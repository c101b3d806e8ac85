import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { emptyDatabaseBeside, testEnv } from '../helpers/app.js';
import { downloadThrough, emptyDir, serverWithOneFile } from '../helpers/backups.js';
import { sha256 } from '../helpers/files.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { startS3 } from '../helpers/s3.js';

const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

/** A restore of `backupDir` into `target` cut short after its blobs, by an SQLite file it cannot create. */
async function interruptedRestore(root: string, backupDir: string, target: Record<string, string>): Promise<void> {
  const notAFolder = path.join(root, 'not-a-folder');
  await fs.writeFile(notAFolder, '');
  const cut = await runCli(['restore', '--from', backupDir], { ...target, DATABASE_URL: `sqlite:${notAFolder}/linkvault.db` });
  assert.equal(cut.code, 1, cut.stdout);
  assert.match(cut.stdout, /restored 1 blob/, 'the blobs were restored before it stopped');
}

async function assertRefusedUntilRestored(root: string, backupDir: string, target: Record<string, string>): Promise<void> {
  const commands = [['serve'], ['migrate'], ['doctor'], ['backup', '--to', path.join(root, 'again')]];
  // Bounded: a server that starts anyway is killed, and the test fails on its exit code.
  const results = await Promise.all(commands.map((command) => runCli(command, target, 60_000)));
  for (const [index, refused] of results.entries()) {
    assert.equal(refused.code, 1, `${commands[index]![0]}: ${refused.stdout}`);
    assert.equal(
      refused.stderr.trim(),
      `linkvault: a restore into ${target.DATA_DIR} was interrupted and left it half restored (RESTORE-IN-PROGRESS is there): run \`linkvault restore --from ${backupDir}\` again to finish it`,
    );
  }
  await assert.rejects(fs.stat(path.join(target.DATA_DIR!, 'master.key')), { code: 'ENOENT' }, 'no new master key was made');
}

async function finishRestore(backupDir: string, target: Record<string, string>): Promise<void> {
  const finished = await runCli(['restore', '--from', backupDir], target);
  assert.equal(finished.code, 0, finished.stderr);
  assert.match(finished.stdout, /was interrupted; removing what it wrote before restoring again/);
  assert.match(finished.stdout, /restore finished: 1 links, 1 blobs/);
  await assert.rejects(fs.stat(path.join(target.DATA_DIR!, 'RESTORE-IN-PROGRESS')), { code: 'ENOENT' });
}

test('a restore interrupted half way (disk, S3): every other command refuses, and restore run again finishes it', async (t) => {
  if (onPostgres) return t.skip('the interruption is an SQLite file that cannot be created');
  const env = await testEnv(t);
  const { server, apiKey, linkId, content } = await serverWithOneFile(t, env);
  const root = await emptyDir(t, 'linkvault-interrupted-');
  const backupDir = path.join(root, 'nightly');
  const made = await runCli(['backup', '--to', backupDir, '--include-master-key'], env);
  assert.equal(made.code, 0, made.stderr);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);

  // Cut before its marker was whole: the blob folder it opened to check the storage, and the marker's partial file, stay.
  const cutEarly = await testEnv(t);
  delete cutEarly.MASTER_KEY;
  await fs.mkdir(path.join(cutEarly.DATA_DIR!, 'blobs', '.tmp'), { recursive: true });
  await fs.writeFile(path.join(cutEarly.DATA_DIR!, 'RESTORE-IN-PROGRESS.partial'), '{"from":');
  const again = await runCli(['restore', '--from', backupDir], cutEarly);
  assert.equal(again.code, 0, again.stderr);

  const onDisk = await testEnv(t);
  delete onDisk.MASTER_KEY;
  await interruptedRestore(root, backupDir, onDisk);
  await assertRefusedUntilRestored(root, backupDir, onDisk);
  // Run again configured for another install (a live one), the restore empties none of it.
  const live = await emptyDir(t, 'linkvault-live-');
  await fs.mkdir(path.join(live, 'blobs', 'links'), { recursive: true });
  await fs.writeFile(path.join(live, 'blobs', 'links', 'kept'), 'a live blob');
  await fs.writeFile(path.join(live, 'linkvault.db'), 'a live database');
  const otherStorage = await runCli(['restore', '--from', backupDir], { ...onDisk, STORAGE_URL: `file://${path.join(live, 'blobs')}` });
  assert.equal(otherStorage.code, 1, otherStorage.stdout);
  assert.match(
    otherStorage.stderr,
    /the interrupted restore wrote its blobs to file:\/\/.+, but STORAGE_URL now names file:\/\/.+Nothing was changed/,
  );
  const otherDatabase = await runCli(['restore', '--from', backupDir], { ...onDisk, DATABASE_URL: `sqlite:${path.join(live, 'linkvault.db')}` });
  assert.equal(otherDatabase.code, 1, otherDatabase.stdout);
  assert.match(otherDatabase.stderr, /linkvault\.db already exists: restore only into an empty database/);
  assert.equal(await fs.readFile(path.join(live, 'blobs', 'links', 'kept'), 'utf8'), 'a live blob');
  assert.equal(await fs.readFile(path.join(live, 'linkvault.db'), 'utf8'), 'a live database');
  await finishRestore(backupDir, onDisk);
  const revived = await startServerProcess(t, onDisk);
  assert.equal(sha256(await downloadThrough(revived.url, apiKey, linkId)), sha256(content));

  const s3 = await startS3(t);
  const onS3 = await testEnv(t, s3.env);
  delete onS3.MASTER_KEY;
  await interruptedRestore(root, backupDir, onS3);
  await assertRefusedUntilRestored(root, backupDir, onS3);
  await finishRestore(backupDir, onS3);
  assert.equal((await s3.keys()).length, 1, 'the bucket holds the one blob, restored once');

  // Storage that holds blobs is refused before the restore writes anything: no marker, so a second try cannot take them for its own.
  const intoUsedStorage = await testEnv(t, s3.env);
  delete intoUsedStorage.MASTER_KEY;
  for (let attempt = 0; attempt < 2; attempt++) {
    const refused = await runCli(['restore', '--from', backupDir], intoUsedStorage);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /the blob storage is not empty/);
  }
  await assert.rejects(fs.stat(path.join(intoUsedStorage.DATA_DIR!, 'RESTORE-IN-PROGRESS')), { code: 'ENOENT' });
  assert.equal((await s3.keys()).length, 1, 'a refused restore leaves the storage as it found it');
});

/** Runs `statement` on the database of `databaseUrl`, in the schema its search_path names, and answers the rows. */
async function onDatabase(databaseUrl: string, statement: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}

test('on PostgreSQL a restore whose pg_restore fails leaves the database empty; restore run again finishes it', async (t) => {
  if (!onPostgres) return t.skip('only a PostgreSQL backup is loaded by pg_restore');
  const env = await testEnv(t);
  const { server, apiKey, linkId, content } = await serverWithOneFile(t, env);
  const root = await emptyDir(t, 'linkvault-interrupted-');
  const backupDir = path.join(root, 'nightly');
  const made = await runCli(['backup', '--to', backupDir], env);
  assert.equal(made.code, 0, made.stderr);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);

  // The dump holds the source's schema: the target is a database of its own, with a schema of that name made for it
  // beforehand, where a view stands in the way of the links table (a view is not a table: the target passes as empty).
  const target = await testEnv(t, { MASTER_KEY: env.MASTER_KEY!, DATABASE_URL: await emptyDatabaseBeside(t, env.DATABASE_URL!) });
  const schema = /search_path=(\w+)/.exec(decodeURIComponent(target.DATABASE_URL!))![1]!;
  await onDatabase(target.DATABASE_URL!, `create schema ${schema}; create view ${schema}.links as select 1 as id`);
  const tables = `select table_name from information_schema.tables where table_schema = '${schema}' and table_type = 'BASE TABLE'`;

  const cut = await runCli(['restore', '--from', backupDir], target);
  assert.equal(cut.code, 1, cut.stdout);
  assert.match(cut.stdout, /restored 1 blob/, 'the blobs were restored before the database');
  assert.match(cut.stderr, /pg_restore failed \(.*"links".*\); the database was left as it was/);
  assert.deepEqual(await onDatabase(target.DATABASE_URL!, tables), [], 'the load is one transaction: no table of it stays');
  await assertRefusedUntilRestored(root, backupDir, target);

  await onDatabase(target.DATABASE_URL!, `drop view ${schema}.links`);
  await finishRestore(backupDir, target);
  const revived = await startServerProcess(t, target);
  assert.equal(sha256(await downloadThrough(revived.url, apiKey, linkId)), sha256(content));
  revived.child.kill('SIGTERM');
  assert.equal(await revived.exited, 0);

  // Cut after pg_restore committed, before the marker went: the rerun recognises the load rather than refusing the full database.
  await fs.writeFile(
    path.join(target.DATA_DIR!, 'RESTORE-IN-PROGRESS'),
    JSON.stringify({ from: backupDir, startedAt: new Date().toISOString(), keyFileWasThere: false }),
  );
  const rerun = await runCli(['restore', '--from', backupDir], target);
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.match(rerun.stdout, /had loaded the database, its last step; nothing was left to restore/);
  await assert.rejects(fs.stat(path.join(target.DATA_DIR!, 'RESTORE-IN-PROGRESS')), { code: 'ENOENT' });
  assert.equal(sha256(await downloadThrough((await startServerProcess(t, target)).url, apiKey, linkId)), sha256(content), 'the blobs were kept');
});
