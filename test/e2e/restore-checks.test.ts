import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { testEnv } from '../helpers/app.js';
import type { Manifest } from '../../src/cli/backup-manifest.js';
import { emptyDir, rewriteManifest, serverWithOneFile } from '../helpers/backups.js';
import { runCli } from '../helpers/process.js';

const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

/**
 * A copy of `backupDir` changed by `edit`, its manifest made to match again and signed under
 * `masterKey`: the checks these cases try are those after the signature's, against whoever holds the key.
 */
async function editedCopy(
  backupDir: string,
  name: string,
  masterKey: string,
  edit: (copy: string, manifest: Manifest) => Promise<void>,
): Promise<string> {
  const copy = path.join(path.dirname(backupDir), name);
  await fs.cp(backupDir, copy, { recursive: true });
  await rewriteManifest(copy, masterKey, (manifest) => edit(copy, manifest));
  return copy;
}

function changeDatabase(copy: string, statements: string): void {
  const database = new Database(path.join(copy, 'database.sqlite'));
  database.exec(statements);
  database.close();
}

test('restore refuses a changed database, files the manifest does not list or lacks, symlinks, and a newer linkvault’s backup', async (t) => {
  if (onPostgres) return t.skip('these backups hold an SQLite database');
  const env = await testEnv(t);
  const { server } = await serverWithOneFile(t, env);
  const backupDir = path.join(await emptyDir(t, 'linkvault-checks-'), 'nightly');
  const made = await runCli(['backup', '--to', backupDir], env);
  assert.equal(made.code, 0, made.stderr);
  server.child.kill('SIGTERM');
  await server.exited;
  const outside = await emptyDir(t, 'linkvault-outside-');

  const cases: Array<[string, (copy: string, manifest: Manifest) => Promise<void>, RegExp]> = [
    [
      'trigger',
      async (copy) =>
        changeDatabase(copy, `create trigger copy_mail after insert on accounts begin update accounts set name = new.email where id = new.id; end`),
      /the backup's database was changed after the backup was made \(trigger copy_mail is not part of linkvault's schema at migration \d{4}-/,
    ],
    [
      'unlisted',
      async (copy) => fs.writeFile(path.join(copy, 'blobs', 'extra'), 'not from the backup'),
      /nightly-unlisted\/blobs\/extra is not listed in the manifest/,
    ],
    [
      'unlisted-database',
      async (_copy, manifest) => {
        manifest.files = manifest.files.filter((file) => file.path !== 'database.sqlite');
      },
      /the manifest does not list database\.sqlite, which this backup must hold/,
    ],
    [
      'symlink',
      async (copy, manifest) => {
        const blob = path.join(copy, manifest.files.find((file) => file.path.startsWith('blobs/'))!.path);
        const elsewhere = path.join(outside, 'blob');
        await fs.rename(blob, elsewhere);
        await fs.symlink(elsewhere, blob);
      },
      /nightly-symlink\/blobs\/links\/\S+ is a symlink: a backup holds only regular files/,
    ],
    [
      'unstorable-key',
      async (copy, manifest) => {
        // Signed by the key holder, but naming a blob the store cannot hold: refused before the marker, not after it on every rerun.
        await fs.writeFile(path.join(copy, 'blobs', 'has space'), 'x');
        manifest.files.push({ path: 'blobs/has space', size: 1, sha256: '' });
      },
      /the manifest names a file outside the backup: "blobs\/has space"/,
    ],
    [
      'newer',
      async (copy, manifest) => {
        changeDatabase(copy, `insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2099-01-01T00:00:00.000Z')`);
        manifest.database.migrations.push('9999-from-the-future');
      },
      /this backup was made by a newer linkvault: its database has run migration 9999-from-the-future, which this linkvault \(latest migration \d{4}-[^)]+\) does not know; restore it with a linkvault release that has migration 9999-from-the-future/,
    ],
  ];
  const copies = await Promise.all(cases.map(([name, edit]) => editedCopy(backupDir, `nightly-${name}`, env.MASTER_KEY!, edit)));
  const targets = await Promise.all(cases.map(() => testEnv(t, { MASTER_KEY: env.MASTER_KEY! })));
  const results = await Promise.all(copies.map((copy, index) => runCli(['restore', '--from', copy], targets[index]!)));
  for (const [index, [name, , message]] of cases.entries()) {
    const refused = results[index]!;
    assert.equal(refused.code, 1, `${name}: ${refused.stdout}`);
    assert.match(refused.stderr, message, name);
    assert.equal(refused.stderr.trim().split('\n').length, 1, `${name}: one line`);
    assert.deepEqual(await fs.readdir(targets[index]!.DATA_DIR!), [], `${name}: nothing was written`);
  }
});
