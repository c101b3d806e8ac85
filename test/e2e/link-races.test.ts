import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { burst, type BurstRequest } from '../helpers/burst.js';
import sharp from 'sharp';
import { createLink, downloadToken, listFiles, uploadForm } from '../helpers/files.js';

const DAY = 24 * 3_600_000;

/** A JSON request of the owner's key, to be sent in a burst. */
const asOwner = (apiKey: string, method: string, path: string, body: unknown): BurstRequest => ({
  method,
  path,
  headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A multipart body as a burst sends it, with its content type. */
async function multipart(form: FormData) {
  const encoded = new Response(form);
  return { contentType: encoded.headers.get('content-type')!, body: Buffer.from(await encoded.arrayBuffer()) };
}

const statuses = (answers: Array<{ status: number; text: string }>) => answers.map((answer) => `${answer.status} ${answer.text}`);

/** Every request of a burst answered 200; else the answers, to see which gave way and how. */
function assertAllOk(answers: Array<{ status: number; text: string }>): void {
  assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]), statuses(answers).join('\n'));
}

test('PATCHes of different settings of one link sent together all hold, a password among them', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('professional');
  const id = await createLink(http, 'notes', 'notes.txt');
  const expiresAt = new Date(Date.now() + 30 * DAY).toISOString();
  const changes = [{ password: 'open sesame' }, { expiresAt }, { allowDownload: true }, { hasWatermark: true }, { maxViews: 7 }];

  const answers = await burst(
    app.url,
    changes.map((change) => asOwner(apiKey, 'PATCH', `/api/links/${id}`, change)),
  );
  assertAllOk(answers);
  const { settings } = (await http.get(`/api/links/${id}`)).body;
  assert.deepEqual(
    {
      hasPassword: settings.hasPassword,
      expiresAt: settings.expiresAt,
      allowDownload: settings.allowDownload,
      hasWatermark: settings.hasWatermark,
      maxViews: settings.maxViews,
    },
    { hasPassword: true, expiresAt, allowDownload: true, hasWatermark: true, maxViews: 7 },
  );
});

test('the setting endpoints and a PATCH sent together to one link all hold', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('professional');
  const id = await createLink(http, 'notes', 'notes.txt');
  const answers = await burst(app.url, [
    asOwner(apiKey, 'PATCH', `/api/links/${id}`, { password: 'open sesame', allowedEmails: ['ana@example.com'] }),
    asOwner(apiKey, 'POST', `/api/links/${id}/active`, { isActive: false }),
    asOwner(apiKey, 'POST', `/api/links/${id}/approval`, { requiresApproval: true }),
    asOwner(apiKey, 'POST', `/api/links/${id}/watermark`, { hasWatermark: true }),
    asOwner(apiKey, 'POST', `/api/links/${id}/otp`, { requiresOtp: true, allowedDomains: ['example.com'] }),
  ]);
  assertAllOk(answers);
  const { settings } = (await http.get(`/api/links/${id}`)).body;
  assert.deepEqual(
    {
      hasPassword: settings.hasPassword,
      allowedEmails: settings.allowedEmails,
      isActive: settings.isActive,
      requiresApproval: settings.requiresApproval,
      hasWatermark: settings.hasWatermark,
      requiresOtp: settings.requiresOtp,
      allowedDomains: settings.allowedDomains,
    },
    {
      hasPassword: true,
      allowedEmails: ['ana@example.com'],
      isActive: false,
      requiresApproval: true,
      hasWatermark: true,
      requiresOtp: true,
      allowedDomains: ['example.com'],
    },
  );
});

test('turning the code gate on while a PATCH changes its allowed addresses keeps both', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('professional');
  const id = await createLink(http, 'notes', 'notes.txt', { allowedEmails: 'ana@example.com' });
  const answers = await burst(app.url, [
    asOwner(apiKey, 'PATCH', `/api/links/${id}`, { allowedEmails: ['bo@example.com'] }),
    asOwner(apiKey, 'POST', `/api/links/${id}/otp`, { requiresOtp: true }),
  ]);
  assertAllOk(answers);
  const { settings } = (await http.get(`/api/links/${id}`)).body;
  assert.deepEqual(
    { requiresOtp: settings.requiresOtp, allowedEmails: settings.allowedEmails },
    { requiresOtp: true, allowedEmails: ['bo@example.com'] },
  );
});

test('preview pictures sent together to one link leave one picture stored, the one it shows', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('professional');
  const id = await createLink(http, 'notes', 'notes.txt');
  const picture = await sharp({ create: { width: 120, height: 63, channels: 3, background: '#1d4ed8' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(picture)], { type: 'image/png' }), 'card.png');
  const { contentType, body } = await multipart(form);
  const answers = await burst(
    app.url,
    [1, 2, 3].map(() => ({
      method: 'PUT',
      path: `/api/links/${id}/preview-image`,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType },
      body,
    })),
  );
  assertAllOk(answers);
  const pictures = (await listFiles(path.join(app.dataDir, 'blobs'))).filter((file) => file.includes(`${id}/preview-`));
  assert.equal(pictures.length, 1, pictures.join('\n'));
  assert.equal((await fetch(`${app.url}/v/${id}/preview.png`)).status, 200);
});

test('PATCHes of different settings of one template sent together all hold', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('professional');
  const created = await http.post('/api/templates', { name: 'Board packs', hasWatermark: false });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const templateId = created.body.id;
  const changes = [{ hasWatermark: true }, { allowDownload: true }, { maxViews: 3 }, { expiration: '24h' }, { name: 'Board' }];
  const answers = await burst(
    app.url,
    changes.map((change) => asOwner(apiKey, 'PATCH', `/api/templates/${templateId}`, change)),
  );
  assertAllOk(answers);
  const { template } = (await http.get(`/api/templates/${templateId}`)).body;
  assert.deepEqual(
    {
      name: template.name,
      hasWatermark: template.hasWatermark,
      allowDownload: template.allowDownload,
      maxViews: template.maxViews,
      expiration: template.expiration,
    },
    { name: 'Board', hasWatermark: true, allowDownload: true, maxViews: 3, expiration: '24h' },
  );
});

test('replacements of a file sent together with one Idempotency-Key make one version, and every one answers it', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('professional');
  const id = await createLink(http, 'v1', 'notes.txt');
  const key = randomUUID();
  const { contentType, body } = await multipart(uploadForm('v2', 'notes.txt'));
  const answers = await burst(
    app.url,
    [1, 2, 3].map(() => ({
      method: 'PUT',
      path: `/api/links/${id}/file`,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType, 'idempotency-key': key },
      body,
    })),
  );
  assert.deepEqual(statuses(answers), Array(3).fill(`200 ${JSON.stringify({ ok: true, version: 2 })}`));
  assert.equal(answers.filter((answer) => /^idempotent-replayed: true$/im.test(answer.head)).length, 2, 'one first answer, two replayed');
  assert.equal((await http.get('/api/links')).body.links[0].version, 2);
});

test("a data room's children set by requests sent together: every one answers, and the room holds one of their lists", async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('business');
  const files: string[] = [];
  for (let n = 0; n < 5; n++) files.push(await createLink(http, `file ${n}`, `f${n}.txt`));
  const room = (await http.post('/api/links/room', { name: 'Series A', children_ids: [files[0]] })).body.id as string;
  const lists = Array.from({ length: 15 }, (_, n) => (n % 2 === 0 ? files : files.toReversed()));
  assertAllOk(
    await burst(
      app.url,
      lists.map((list) => asOwner(apiKey, 'PUT', `/api/links/${room}/children`, { children_ids: list })),
    ),
  );
  const held = (await http.get(`/api/links/${room}/children`)).body.children.map((child: { id: string }) => child.id);
  assert.ok(
    [files, files.toReversed()].some((list) => JSON.stringify(list) === JSON.stringify(held)),
    JSON.stringify(held),
  );
});

test('rooms made of a link while it is deleted: each room is made before the deletion or refused after it, never a server error', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('business');
  const kept = await createLink(http, 'kept', 'kept.txt');
  const doomed = await createLink(http, 'doomed', 'doomed.txt');
  const answers = await burst(app.url, [
    ...Array.from({ length: 8 }, (_, n) => asOwner(apiKey, 'POST', '/api/links/room', { name: `Room ${n}`, children_ids: [kept, doomed] })),
    { method: 'DELETE', path: `/api/links/${doomed}`, headers: { authorization: `Bearer ${apiKey}` } },
  ]);
  assert.ok(
    answers.every((answer) => answer.status === 200 || answer.status === 404),
    statuses(answers).join('\n'),
  );
  assert.equal(answers.at(-1)!.status, 200, 'the deletion goes through');
  assert.equal((await http.get(`/api/links/${doomed}`)).status, 404);
});

test('downloads under way when the file is replaced all finish, each spending one use', async (t) => {
  const app = await startApp(t);
  const { apiKey, http } = await app.createAccount('professional');
  const first = randomBytes(4 * 1024 * 1024);
  const id = await createLink(http, first, 'figures.dat');
  const token = await downloadToken(http, id, 100);
  const { contentType, body } = await multipart(uploadForm(randomBytes(1024), 'figures-v2.dat'));
  const answers = await burst(app.url, [
    ...Array.from({ length: 30 }, () => ({ method: 'GET', path: `/api/links/${id}/download-original?token=${encodeURIComponent(token)}` })),
    { method: 'PUT', path: `/api/links/${id}/file`, headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType }, body },
  ]);
  assert.deepEqual(
    answers.map((answer) => answer.status),
    Array<number>(31).fill(200),
  );
  const { uses_left } = await app.runtime.database.db.selectFrom('download_tokens').select('uses_left').executeTakeFirstOrThrow();
  assert.equal(uses_left, 70);
});
