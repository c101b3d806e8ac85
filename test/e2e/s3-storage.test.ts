import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { abortUploadMidway, createLink, downloadOriginal, downloadToken, sha256, uploadFile, uploadForm } from '../helpers/files.js';
import { startS3 } from '../helpers/s3.js';

// The SDK reads credentials from the environment, as in production.
async function startAppOnS3(t: import('node:test').TestContext) {
  const s3 = await startS3(t);
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = s3.env.AWS_ACCESS_KEY_ID;
  process.env.AWS_SECRET_ACCESS_KEY = s3.env.AWS_SECRET_ACCESS_KEY;
  t.after(() => {
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  });
  return { s3, app: await startApp(t, { env: { STORAGE_URL: s3.env.STORAGE_URL } }) };
}

test('on S3: upload, ranged download, new version and delete keep the bucket exact', async (t) => {
  const { s3, app } = await startAppOnS3(t);
  const { http: api } = await app.createAccount('professional');
  const content = randomBytes(9 * 1024 * 1024 + 123); // more than one 8 MiB multipart part
  const id = await createLink(api, content, 'big.dat');
  assert.equal((await s3.keys()).length, 1);
  const stored = (await s3.keys())[0]!;
  assert.ok(stored.startsWith(`links/${id}/`));

  const token = await downloadToken(api, id);
  assert.equal(sha256((await downloadOriginal(app.url, id, token)).body), sha256(content));
  const part = await downloadOriginal(app.url, id, token, { range: 'bytes=8388600-8388700' });
  assert.equal(part.response.status, 206);
  assert.ok(part.body.equals(content.subarray(8388600, 8388701)));

  assert.deepEqual((await api.put(`/api/links/${id}/file`, uploadForm('v2', 'v2.txt'))).body, { ok: true, version: 2 });
  // The replaced version stays for the orphan sweep (a download may have read the link just before).
  const afterReplace = await s3.keys();
  assert.equal(afterReplace.length, 2);
  assert.ok(afterReplace.includes(stored) && afterReplace.every((key) => key.startsWith(`links/${id}/`)));

  assert.equal((await uploadFile(api, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), randomBytes(10)]), 'x.pdf')).status, 422);
  assert.equal((await s3.keys()).length, 2, 'a refused upload leaves no object');

  await api.delete(`/api/links/${id}`);
  assert.deepEqual(await s3.keys(), []);
});

test('on S3: a client abort mid-upload leaves no object and no row', async (t) => {
  const { s3, app } = await startAppOnS3(t);
  const { http: api, apiKey } = await app.createAccount('professional');
  await abortUploadMidway(app.url, apiKey, 50 * 1024 * 1024, 12 * 1024 * 1024);
  for (let i = 0; i < 50 && (await s3.keys()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(await s3.keys(), []);
  assert.equal((await api.get('/api/links')).body.pagination.total, 0);
});

test('on S3: storage that cannot be reached answers 503 with a sentence, and service resumes when it is back', async (t) => {
  const { s3, app } = await startAppOnS3(t);
  const { http: api } = await app.createAccount('professional');
  const content = randomBytes(64 * 1024);
  const id = await createLink(api, content, 'kept.txt');
  const token = await downloadToken(api, id);

  await s3.stop();
  const upload = await uploadFile(api, randomBytes(1024), 'later.txt');
  assert.equal(upload.status, 503, JSON.stringify(upload.body));
  assert.match(upload.body.error, /File storage cannot be reached/);
  assert.equal(upload.headers.get('retry-after'), '1');
  const download = await downloadOriginal(app.url, id, token);
  assert.equal(download.response.status, 503);
  assert.equal((await api.get('/api/links')).body.pagination.total, 1, 'the refused upload left no link');

  await s3.start();
  assert.equal((await uploadFile(api, randomBytes(1024), 'later.txt')).status, 200);
  assert.equal(sha256((await downloadOriginal(app.url, id, token)).body), sha256(content));
});
