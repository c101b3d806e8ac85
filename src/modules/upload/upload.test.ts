import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import {
  abortUploadMidway,
  createLink,
  downloadOriginal,
  downloadToken,
  listFiles,
  sha256,
  uploadFile,
  uploadForm,
} from '../../../test/helpers/files.js';
import { BLOCKED_EXTENSIONS } from '../files/content-checks.js';
import { MAX_UPLOAD_BYTES } from '../files/file-intake.js';
import { UploadForm } from './upload-form.js';

async function linkRow(app: Awaited<ReturnType<typeof startApp>>, id: string) {
  return app.runtime.database.db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirst();
}

test('upload answers {id, viewer_url} and applies the defaults', async (t) => {
  const app = await startApp(t, { env: { PUBLIC_URL: 'https://share.example.com' } });
  const { http: api } = await app.createAccount('professional');
  const before = Date.now();
  const response = await uploadFile(api, 'hello world', 'hello.txt');
  assert.equal(response.status, 200);
  assert.deepEqual(Object.keys(response.body).sort(), ['id', 'viewer_url']);
  assert.match(response.body.id, /^[0-9A-Za-z]{22}$/);
  assert.equal(response.body.viewer_url, `https://share.example.com/v/${response.body.id}`);

  const row = (await linkRow(app, response.body.id))!;
  assert.equal(row.password_hash, null);
  assert.equal(row.has_watermark, 0);
  assert.equal(row.requires_approval, 0);
  assert.equal(row.requires_otp, 0);
  assert.equal(row.view_session_ttl, 3600);
  assert.equal(row.max_views, 0);
  assert.equal(row.preview_pages, null);
  assert.equal(row.mime, 'text/plain');
  assert.equal(row.size, 11);
  assert.equal(row.sha256, sha256(Buffer.from('hello world')));
  assert.ok(Math.abs(row.expires_at - row.created_at - 7 * 86_400_000) < 1000 && row.created_at >= before - 1000);
});

test('every form field is stored, whether it comes before or after the file', async (t) => {
  const app = await startApp(t);
  const { http: api } = await app.createAccount('professional');
  const fields = {
    expiration: '1h',
    addPassword: '1',
    password: 's3cret',
    hasWatermark: '1',
    requiresApproval: '1',
    requiresOtp: '1',
    allowedEmails: ' Ann@Example.com, bob@example.org ',
    allowedDomains: 'Partner.io',
    bookingUrl: 'https://cal.example.com/me',
    previewPages: '3',
    viewSessionTtlSeconds: '600',
    maxViews: '5',
  };
  for (const fileFirst of [false, true]) {
    const response = await api.post('/api/upload', uploadForm('%PDF-1.4 fake', 'deck.pdf', fields, fileFirst));
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const row = (await linkRow(app, response.body.id))!;
    assert.ok(row.password_hash?.startsWith('scrypt$'));
    assert.equal(row.has_watermark, 1);
    assert.equal(row.requires_approval, 1);
    assert.equal(row.requires_otp, 1);
    assert.deepEqual(JSON.parse(row.allowed_emails), ['ann@example.com', 'bob@example.org']);
    assert.deepEqual(JSON.parse(row.allowed_domains), ['partner.io']);
    assert.equal(row.booking_url, 'https://cal.example.com/me');
    assert.equal(row.preview_pages, 3);
    assert.equal(row.view_session_ttl, 600);
    assert.equal(row.max_views, 5);
    assert.equal(row.expires_at - row.created_at, 3_600_000);
    assert.equal(row.mime, 'application/pdf');
  }
  const metadata = await api.get(
    `/api/links/${(await uploadFile(api, 'x', 'x.txt', { expiration: '24h', addPassword: '1', password: 'p' })).body.id}`,
  );
  assert.equal(metadata.body.requires_password, true);
});

test('400 for each malformed field, naming it', async (t) => {
  const app = await startApp(t);
  const { http: api } = await app.createAccount('professional');
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ expiration: '2d' }, /expiration/],
    // Names every object inherits are not durations: an expiry made of them broke the whole link list.
    [{ expiration: 'constructor' }, /expiration/],
    [{ expiration: '__proto__' }, /expiration/],
    [{ expiration: 'toString' }, /expiration/],
    [{ hasWatermark: 'yes' }, /hasWatermark/],
    [{ requiresApproval: '2' }, /requiresApproval/],
    [{ addPassword: 'true', password: 'x' }, /addPassword/],
    [{ viewSessionTtlSeconds: '59' }, /viewSessionTtlSeconds/],
    [{ viewSessionTtlSeconds: '86401' }, /viewSessionTtlSeconds/],
    [{ maxViews: '-1' }, /maxViews/],
    [{ maxViews: '1.5' }, /maxViews/],
    [{ previewPages: '0' }, /previewPages/],
    [{ requirePaymentToDownload: '1', downloadPrice: '49' }, /downloadPrice/],
    [{ requirePaymentToDownload: '1', downloadPrice: '9.99' }, /downloadPrice/],
    [{ requirePaymentToDownload: '1', downloadPrice: '500', downloadCurrency: 'USD' }, /downloadCurrency/],
    [{ allowedEmails: 'ann@example.com,not-an-email' }, /allowedEmails/],
    [{ allowedDomains: 'exa mple.com' }, /allowedDomains/],
    [{ bookingUrl: 'javascript:alert(1)' }, /bookingUrl/],
  ];
  for (const [fields, message] of cases) {
    const response = await uploadFile(api, 'x', 'x.txt', fields);
    assert.equal(response.status, 400, JSON.stringify(fields));
    assert.match(response.body.error, message, JSON.stringify(fields));
  }
  const noFile = await api.post(
    '/api/upload',
    (() => {
      const f = new FormData();
      f.append('expiration', '1h');
      return f;
    })(),
  );
  assert.equal(noFile.status, 400);
  assert.match(noFile.body.error, /file/);
  const notMultipart = await api.post('/api/upload', { file: 'x' });
  assert.equal(notMultipart.status, 400);
  assert.deepEqual(await listFiles(path.join(app.dataDir, 'blobs', 'links')), [], 'no blob outlives a refused upload');
});

test('422 for rules: blocked extensions, executables, OTP without lists, empty password, paid without payments', async (t) => {
  const app = await startApp(t);
  const { http: api } = await app.createAccount('professional');
  for (const extension of BLOCKED_EXTENSIONS) {
    for (const name of [`file.${extension}`, `FILE.${extension.toUpperCase()}`, `report.pdf.${extension}`]) {
      const response = await uploadFile(api, 'harmless', name);
      assert.equal(response.status, 422, name);
      assert.match(response.body.error, new RegExp(`\\.${extension}`));
    }
  }
  assert.equal((await uploadFile(api, 'x', 'archive.exe.pdf')).status, 200, 'only the last extension counts');

  const executables: Array<[string, Buffer]> = [
    ['windows', Buffer.concat([Buffer.from('MZ'), randomBytes(200)])],
    ['elf', Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), randomBytes(200)])],
    ['mach-o 64', Buffer.concat([Buffer.from([0xcf, 0xfa, 0xed, 0xfe]), randomBytes(200)])],
    ['mach-o fat', Buffer.concat([Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]), randomBytes(200)])],
  ];
  for (const [label, content] of executables) {
    const response = await uploadFile(api, content, 'quarterly-report.pdf');
    assert.equal(response.status, 422, label);
    assert.match(response.body.error, /[Ee]xecutable/);
  }

  const otp = await uploadFile(api, 'x', 'x.txt', { requiresOtp: '1' });
  assert.equal(otp.status, 422);
  assert.match(otp.body.error, /requiresOtp/);
  const password = await uploadFile(api, 'x', 'x.txt', { addPassword: '1', password: '' });
  assert.equal(password.status, 422);
  const paid = await uploadFile(api, 'x', 'x.txt', { requirePaymentToDownload: '1', downloadPrice: '1200', downloadCurrency: 'eur' });
  assert.equal(paid.status, 422);
  assert.match(paid.body.error, /payments are not configured/);
  assert.equal((await api.get('/api/links')).body.pagination.total, 1);
  assert.equal((await listFiles(path.join(app.dataDir, 'blobs', 'links'))).length, 1);
});

test('exactly 100 MB is accepted; one byte more is 413 and nothing is stored', async (t) => {
  const app = await startApp(t);
  const { http: api } = await app.createAccount('professional');
  const exact = randomBytes(MAX_UPLOAD_BYTES);
  const accepted = await uploadFile(api, exact, 'exact.dat');
  assert.equal(accepted.status, 200);
  const token = await downloadToken(api, accepted.body.id);
  const { body } = await downloadOriginal(app.url, accepted.body.id, token);
  assert.equal(body.length, MAX_UPLOAD_BYTES);
  assert.equal(sha256(body), sha256(exact));

  const over = await uploadFile(api, Buffer.concat([exact, Buffer.from([1])]), 'over.dat');
  assert.equal(over.status, 413);
  assert.match(over.body.error, /100 MB/);
  assert.equal((await api.get('/api/links')).body.pagination.total, 1);
  assert.equal((await listFiles(path.join(app.dataDir, 'blobs', 'links'))).length, 1);
  assert.deepEqual(await listFiles(path.join(app.dataDir, 'blobs', '.tmp')), []);
});

test('a client abort mid-upload leaves no row, no blob and no temp file', async (t) => {
  const app = await startApp(t);
  const { http: api, apiKey } = await app.createAccount('professional');
  await abortUploadMidway(app.url, apiKey, 20 * 1024 * 1024, 5 * 1024 * 1024);
  // The server notices the closed socket asynchronously.
  for (let i = 0; i < 50 && (await listFiles(path.join(app.dataDir, 'blobs'))).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(await listFiles(path.join(app.dataDir, 'blobs')), []);
  assert.equal((await api.get('/api/links')).body.pagination.total, 0);
});

test('the stored blob is encrypted; one flipped byte fails the download instead of serving wrong bytes', async (t) => {
  const app = await startApp(t);
  const { http: api } = await app.createAccount('professional');
  const marker = 'PLAINTEXT-MARKER-7f3a9c';
  const content = Buffer.from(`${marker}\n`.repeat(20_000)); // ~480 KB, 8 segments
  const id = await createLink(api, content, 'secret.txt');
  const [blobFile] = await listFiles(path.join(app.dataDir, 'blobs', 'links', id));
  const stored = await fs.readFile(blobFile!);
  assert.ok(!stored.includes(marker), 'no plaintext in the blob');
  assert.ok(!stored.includes(Buffer.from(marker).toString('base64').slice(0, 16)));

  const token = await downloadToken(api, id);
  assert.equal(sha256((await downloadOriginal(app.url, id, token)).body), sha256(content));

  stored[200_000] = stored[200_000]! ^ 0x01;
  await fs.writeFile(blobFile!, stored);
  // The headers (200, full length) are out before the bad segment is read: the server can only cut
  // the connection, so the client must see the body fail, never a complete download.
  const outcome = await downloadOriginal(app.url, id, token).then(
    ({ response, body }) => ({ completed: true as const, detail: `status ${response.status}, ${body.length} bytes` }),
    (error: unknown) => ({ completed: false as const, detail: String(error) }),
  );
  assert.equal(outcome.completed, false, `the tampered download completed: ${outcome.detail}`);
  assert.match(outcome.detail, /terminated|closed|socket|aborted/i);
});

test('a bad field sent before the file is refused at once, before the file is read', async (t) => {
  const app = await startApp(t);
  const { apiKey } = await app.createAccount('professional');
  const boundary = 'linkvault-early-field-check';
  const declaredFileBytes = 100 * 1024 * 1024;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="expiration"\r\n\r\nforever\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const { port } = new URL(app.url);

  // The client sends the field and only the first 64 KiB of a 100 MB file, then waits: the
  // answer must come without the rest (the server cannot have read 1 MB of the file).
  const answer = await new Promise<{ status: number; body: string; sentFileBytes: number }>((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: '/api/upload',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + declaredFileBytes + tail.length,
      },
    });
    const firstChunk = Buffer.alloc(64 * 1024, 0x41);
    request.write(head);
    request.write(firstChunk);
    const timer = setTimeout(() => reject(new Error('no answer within 10 s while the file was still owed')), 10_000);
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body, sentFileBytes: firstChunk.length });
        request.destroy();
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  assert.equal(answer.status, 400, answer.body);
  assert.match(JSON.parse(answer.body).error, /expiration/);
  assert.ok(answer.sentFileBytes < 1024 * 1024);
  assert.deepEqual(await listFiles(path.join(app.dataDir, 'blobs')), [], 'nothing stored');
});

test("the upload form is described once: OpenAPI's multipart schema and the README table list the same fields", async (t) => {
  const app = await startApp(t);
  const document = (await app.http().get('/api/openapi.json')).body;
  const form = document.paths['/api/upload'].post.requestBody.content['multipart/form-data'].schema;
  assert.deepEqual(form.required, ['file']);
  assert.deepEqual(Object.keys(form.properties).sort(), Object.keys(UploadForm.properties).sort());
  assert.equal(form.properties.file.format, 'binary');

  const readme = await fs.readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('`POST /api/upload`'), readme.indexOf('It answers `{id, viewer_url}`'));
  for (const field of Object.keys(UploadForm.properties)) assert.ok(table.includes(`\`${field}\``), `the README's upload table names ${field}`);
});
