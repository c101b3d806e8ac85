import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';

test('a fresh install makes its master key; a lost key beside existing accounts stops the start instead of making a new one', async (t) => {
  const env = await testEnv(t);
  delete env.MASTER_KEY;
  const keyFile = path.join(env.DATA_DIR!, 'master.key');
  const created = await runCli(['accounts', 'create', '--email', 'keyholder@example.com', '--plan', 'business'], env);
  assert.equal(created.code, 0, created.stderr);
  await fs.stat(keyFile); // the first command of a fresh install made it

  await fs.rm(keyFile);
  // Bounded: a server that starts anyway is killed, and the test fails on its exit code.
  const [serve, setupLink] = await Promise.all([runCli(['serve'], env, 60_000), runCli(['setup-link'], env)]);
  for (const refused of [serve, setupLink]) {
    assert.equal(refused.code, 1, refused.stdout);
    assert.equal(
      refused.stderr.trim(),
      `linkvault: the master key is missing: MASTER_KEY is not set and there is no ${keyFile}, yet the database holds accounts or links sealed under a key; restore master.key from your backup or set MASTER_KEY to the original key`,
    );
  }
  await assert.rejects(fs.stat(keyFile), { code: 'ENOENT' }, 'no new key was made');
});
