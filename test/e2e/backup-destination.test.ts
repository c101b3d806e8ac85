import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { emptyDir, serverWithOneFile } from '../helpers/backups.js';
import { runCli } from '../helpers/process.js';

/** Every folder under `root`, itself included. */
async function foldersUnder(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  return [root, ...entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(entry.parentPath, entry.name))];
}

test('backup refuses a destination inside DATA_DIR, also through a symlink, and makes every folder it writes 0700 under umask 022', async (t) => {
  const umask = process.umask(0o022); // as a default Linux login has it: the CLI inherits it
  t.after(() => process.umask(umask));
  const env = await testEnv(t);
  const { server } = await serverWithOneFile(t, env);
  const root = await emptyDir(t, 'linkvault-destination-');
  const alias = path.join(root, 'data-alias');
  await fs.symlink(env.DATA_DIR!, alias);

  const destinations = [env.DATA_DIR!, path.join(env.DATA_DIR!, 'backups', 'nightly'), path.join(alias, 'nightly')];
  const refusals = await Promise.all(destinations.map((to) => runCli(['backup', '--to', to], env)));
  for (const [index, refused] of refusals.entries()) {
    assert.equal(refused.code, 1, `${destinations[index]}: ${refused.stdout}`);
    assert.match(
      refused.stderr.trim(),
      /^linkvault: \S+ is inside DATA_DIR \S+: a backup there is lost with the data it copies; choose a folder outside DATA_DIR$/,
    );
  }
  await assert.rejects(fs.stat(path.join(env.DATA_DIR!, 'backups')), { code: 'ENOENT' }, 'nothing was made');

  const backupDir = path.join(root, 'backups', 'nightly');
  const made = await runCli(['backup', '--to', backupDir], env);
  assert.equal(made.code, 0, made.stderr);
  server.child.kill('SIGTERM');
  await server.exited;
  const folders = await foldersUnder(backupDir);
  assert.ok(
    folders.some((folder) => folder.includes(`${path.sep}links${path.sep}`)),
    'the blob folders are there',
  );
  for (const folder of folders) assert.equal((await fs.stat(folder)).mode & 0o777, 0o700, folder);
});
