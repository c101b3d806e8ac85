import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { testEnv } from '../helpers/app.js';
import { ageBlobs, auditAfterCrash, killDuringUpload, seededBytes, seededRandom } from '../helpers/crash.js';
import { createLink, sha256 } from '../helpers/files.js';
import { createHttpClient } from '../helpers/http.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

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

test('kill -9 mid-upload and mid-replacement, round after round: no row without its blob, no orphan after the sweep, every file intact', async (t) => {
  const env = await testEnv(t);
  const created = await runCli(['accounts', 'create', '--email', 'rounds@example.com', '--plan', 'professional'], env);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
  const blobsDir = path.join(env.DATA_DIR!, 'blobs');
  const random = seededRandom(17);
  const sent = new Map<string, string>();
  const fileOf = (name: string) => {
    const content = seededBytes(name, Math.round((2 + 2 * random()) * 1024 * 1024));
    sent.set(name, sha256(content));
    return content;
  };

  let server = await startServerProcess(t, env);
  const replaced = await createLink(createHttpClient(server.url, apiKey), fileOf('original.dat'), 'original.dat');
  // Where each round dies: mid-body, as the blob lands (around the commit), or just after the whole body.
  const rounds: Array<{ replace?: string; killAfter: number | 'stored'; graceMs?: number }> = [
    { killAfter: 1024 * 1024 },
    { killAfter: 'stored' },
    { killAfter: Number.MAX_SAFE_INTEGER, graceMs: 5 },
    { killAfter: 'stored' },
    { replace: replaced, killAfter: 1536 * 1024 },
    { replace: replaced, killAfter: 'stored' },
    { replace: replaced, killAfter: 'stored' },
    { replace: replaced, killAfter: Number.MAX_SAFE_INTEGER, graceMs: 5 },
  ];
  for (const [index, round] of rounds.entries()) {
    const fileName = `round-${index}.dat`;
    await killDuringUpload(server, { apiKey, fileName, content: fileOf(fileName), blobsDir, ...round });
    server = await startServerProcess(t, env);
    assert.deepEqual(
      await waitFor(
        () => fs.readdir(path.join(blobsDir, '.tmp')),
        (names) => names.length === 0,
      ),
      [],
      `round ${index}: temp files gone at start`,
    );
  }

  // An hour later, as far as the sweep can tell: whatever no row points at goes.
  await ageBlobs(blobsDir, 2 * 3_600_000);
  const swept = await runCli(['sweep'], env);
  assert.equal(swept.code, 0, swept.stderr);
  t.diagnostic(`sweep: ${swept.stdout.trim()}`);
  const audit = await auditAfterCrash(env, { url: server.url, apiKey }, sent);
  assert.deepEqual(audit.rowsWithoutBlob, [], 'no row without its blob');
  assert.deepEqual(audit.orphanBlobs, [], 'no blob without its row after the sweep');
  assert.deepEqual(audit.damaged, [], 'every file downloads intact');
  assert.equal(audit.downloadedIntact, audit.links);
  assert.ok(audit.links >= 1, 'the link that was replaced survives');
  assert.ok(['ok', 'skipped'].includes(audit.integrity), `integrity_check: ${audit.integrity}`);
  assert.deepEqual(audit.tempFiles, []);
  server.child.kill('SIGTERM');
  await server.exited;
});
