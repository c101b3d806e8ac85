import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';

test('doctor: checking local storage writes nothing: an empty data folder stays empty, and the missing blob folder is a warning', async (t) => {
  const env = await testEnv(t);
  const run = await runCli(['doctor', '--json'], env, 60_000);
  const checks = (JSON.parse(run.stdout) as { checks: Array<{ check: string; status: string; message: string }> }).checks;
  const storage = checks.find((check) => check.check === 'storage');
  assert.deepEqual(storage, {
    check: 'storage',
    status: 'warn',
    message: `no blob folder yet at ${env.DATA_DIR}/blobs: the first start creates it (looked at only, nothing written)`,
  });
  assert.deepEqual(await fs.readdir(env.DATA_DIR!), [], 'the doctor made nothing in DATA_DIR');
});
