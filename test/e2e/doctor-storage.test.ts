import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';
import { startS3 } from '../helpers/s3.js';

interface Check {
  check: string;
  status: 'ok' | 'warn' | 'FAIL';
  message: string;
}

const storageCheck = (stdout: string) => (JSON.parse(stdout) as { checks: Check[] }).checks.find((check) => check.check === 'storage');

test('doctor: checking local storage writes nothing: an empty data folder stays empty, and the missing blob folder is a warning', async (t) => {
  const env = await testEnv(t);
  const run = await runCli(['doctor', '--json'], env, 60_000);
  assert.deepEqual(storageCheck(run.stdout), {
    check: 'storage',
    status: 'warn',
    message: `no blob folder yet at ${env.DATA_DIR}/blobs: the first start creates it (looked at only, nothing written)`,
  });
  assert.deepEqual(await fs.readdir(env.DATA_DIR!), [], 'the doctor made nothing in DATA_DIR');
});

test('doctor: on S3 the storage check writes one probe blob, reads it back and deletes it, leaving the bucket as it was', async (t) => {
  const s3 = await startS3(t);
  const env = await testEnv(t, s3.env);
  const run = await runCli(['doctor', '--json'], env, 60_000);
  const storage = storageCheck(run.stdout);
  assert.equal(storage?.status, 'ok', run.stdout);
  assert.match(storage.message, /^wrote, read back and deleted a probe blob in s3:\/\/linkvault-test \(nothing left behind\)$/);
  assert.deepEqual(await s3.keys(), []);
  assert.deepEqual(await fs.readdir(env.DATA_DIR!), [], 'nothing made in DATA_DIR either');
});
