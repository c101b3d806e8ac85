import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { createHttpClient } from '../helpers/http.js';
import { runCli, startServerProcess } from '../helpers/process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms for at most `ms`; resolves with its last answer. */
async function waitFor<T>(check: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await check();
  while (!done(value) && Date.now() < deadline) {
    await sleep(100);
    value = await check();
  }
  return value;
}

test('a server killed mid-upload leaves a temporary file that the next start removes at once, and no link', async (t) => {
  const env = await testEnv(t);
  const created = await runCli(['accounts', 'create', '--email', 'crash@example.com', '--plan', 'professional'], env);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const tmpDir = path.join(env.DATA_DIR!, 'blobs', '.tmp');
  const temps = () => fs.readdir(tmpDir).catch(() => [] as string[]);

  const first = await startServerProcess(t, env);
  const boundary = 'linkvault-crash';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const upload = http.request(`${first.url}/api/upload`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': Buffer.byteLength(head) + 50 * 1024 * 1024 + boundary.length + 8,
    },
  });
  upload.on('error', () => {}); // the server dies under it
  upload.write(head);
  upload.write(Buffer.alloc(1024 * 1024, 0x61));

  const during = await waitFor(temps, (names) => names.length > 0);
  assert.equal(during.length, 1, 'the upload is being written to a temporary file');
  first.child.kill('SIGKILL');
  await first.exited;
  upload.destroy();
  assert.deepEqual(await temps(), during, 'a killed process cannot clean up after itself');

  const second = await startServerProcess(t, env);
  assert.deepEqual(await waitFor(temps, (names) => names.length === 0), [], 'the next start removes it at once');
  const links = await createHttpClient(second.url, apiKey).get('/api/links');
  assert.equal(links.body.pagination.total, 0, 'no link without its blob');
  second.child.kill('SIGTERM');
  await second.exited;
});
