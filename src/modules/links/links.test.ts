import assert from 'node:assert/strict';
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createLink, downloadOriginal, downloadToken, listFiles, sha256, uploadForm } from '../../../test/helpers/files.js';
import { ORPHAN_GRACE_MS } from '../files/orphan-blob-sweeper.js';

const HOUR = 3_600_000;

test('list pages newest first with exact pagination over 250 links', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const ids: string[] = [];
  for (let i = 0; i < 250; i++) ids.push(await createLink(http, `file ${i}`, `f${i}.txt`));
  const newestFirst = [...ids].reverse();

  const first = await http.get('/api/links?limit=100');
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.pagination, { page: 1, limit: 100, total: 250, totalPages: 3 });
  assert.deepEqual(
    first.body.links.map((l: any) => l.id),
    newestFirst.slice(0, 100),
  );
  const item = first.body.links[0];
  for (const field of ['id', 'name', 'mime', 'views', 'requires_password', 'has_watermark', 'created_at', 'expires_at', 'viewer_url']) {
    assert.ok(field in item, field);
  }
  const last = await http.get('/api/links?limit=100&page=3');
  assert.deepEqual(
    last.body.links.map((l: any) => l.id),
    newestFirst.slice(200),
  );
  assert.equal((await http.get('/api/links?limit=100&page=4')).body.links.length, 0);
  const byDefault = await http.get('/api/links');
  assert.equal(byDefault.body.pagination.limit, 20);
  assert.equal(byDefault.body.pagination.totalPages, 13);
  for (const query of ['limit=0', 'limit=101', 'page=0', 'tab=archived', 'limit=ten']) {
    assert.equal((await http.get(`/api/links?${query}`)).status, 400, query);
  }
});

test('cursor: walks the list newest first without repeats as links come and go; page keeps its numbers', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) ids.push(await createLink(http, `file ${i}`, `f${i}.txt`));
  const newestFirst = [...ids].reverse();

  const first = await http.get('/api/links?limit=10');
  assert.deepEqual(first.body.pagination, { page: 1, limit: 10, total: 25, totalPages: 3 });
  assert.match(first.body.nextCursor, /^[A-Za-z0-9_-]+$/);
  // A link uploaded and one deleted mid-walk: the next page neither repeats nor skips what remains.
  const newest = await createLink(http, 'newest', 'newest.txt');
  assert.equal((await http.delete(`/api/links/${newestFirst[12]}`)).status, 200);
  const second = await http.get(`/api/links?limit=10&cursor=${first.body.nextCursor}`);
  assert.equal(second.status, 200);
  assert.deepEqual(second.body.pagination, { page: 2, limit: 10, total: 25, totalPages: 3 });
  assert.deepEqual(
    second.body.links.map((l: any) => l.id),
    [...newestFirst.slice(10, 12), ...newestFirst.slice(13, 21)],
  );
  const third = await http.get(`/api/links?limit=10&page=1&cursor=${second.body.nextCursor}`);
  assert.deepEqual(
    third.body.links.map((l: any) => l.id),
    newestFirst.slice(21),
  );
  assert.equal(third.body.pagination.page, 3, 'the cursor, not page=1, says where it is');
  assert.equal(third.body.nextCursor, null);

  // Page numbers, read from whichever end is nearer, give the same pages as the cursor.
  const byPage = await Promise.all([1, 2, 3, 4].map((page) => http.get(`/api/links?limit=10&page=${page}`)));
  assert.deepEqual(
    byPage.map((page) => page.body.links.length),
    [10, 10, 5, 0],
  );
  assert.deepEqual(
    byPage.flatMap((page) => page.body.links.map((l: any) => l.id)),
    [newest, ...newestFirst.filter((_, index) => index !== 12)],
  );
  assert.deepEqual(
    byPage.map((page) => page.body.nextCursor === null),
    [false, false, true, true],
  );

  for (const cursor of ['not-a-cursor', Buffer.from('[1,2]').toString('base64url'), 'a+b', first.body.nextCursor.slice(0, 20)]) {
    assert.equal((await http.get(`/api/links?cursor=${encodeURIComponent(cursor)}`)).status, 400, cursor);
  }
  const otherTab = await http.get(`/api/links?tab=expired&cursor=${first.body.nextCursor}`);
  assert.equal(otherTab.status, 400);
  assert.match(otherTab.body.error, /tab=expired/);
});

test("metadata is the spec's Link object and the settings beside it; delete removes row and blobs", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'quarterly numbers', 'q3.txt', { hasWatermark: '1' });
  const { settings, document, viewer_url: viewerUrl, ...link } = (await http.get(`/api/links/${id}`)).body;
  assert.ok(['processing', 'failed'].includes(document.status), 'a .txt is a paged document (here without LibreOffice)');
  assert.match(viewerUrl, new RegExp(`/v/${id}$`), 'beside the spec object, where visitors open it');
  assert.deepEqual(link, { id, name: 'q3.txt', mime: 'text/plain', views: 0, requires_password: false, has_watermark: true });
  assert.equal(settings.hasWatermark, true);

  assert.equal((await listFiles(path.join(app.dataDir, 'blobs', 'links', id))).length, 1);
  assert.deepEqual((await http.delete(`/api/links/${id}`)).body, { ok: true });
  assert.equal((await http.get(`/api/links/${id}`)).status, 404);
  assert.equal((await http.delete(`/api/links/${id}`)).status, 404);
  assert.deepEqual(await listFiles(path.join(app.dataDir, 'blobs', 'links')), []);
});

test('settings endpoints answer as the spec says, with PUT and POST as aliases of PATCH', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http);
  const row = () => app.runtime.database.db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  assert.deepEqual((await http.patch(`/api/links/${id}/active`, { isActive: false })).body, { ok: true });
  assert.equal((await row()).is_active, 0);
  assert.deepEqual((await http.put(`/api/links/${id}/active`, { isActive: true })).body, { ok: true });
  assert.equal((await row()).is_active, 1);

  assert.deepEqual((await http.patch(`/api/links/${id}/password`, { password: 'open sesame' })).body, { ok: true, hasPassword: true });
  assert.equal((await http.get(`/api/links/${id}`)).body.requires_password, true);
  assert.deepEqual((await http.post(`/api/links/${id}/password`, { password: '' })).body, { ok: true, hasPassword: false });
  assert.equal((await row()).password_hash, null);

  assert.deepEqual((await http.patch(`/api/links/${id}/watermark`, { hasWatermark: true })).body, { ok: true, hasWatermark: true });
  assert.deepEqual((await http.patch(`/api/links/${id}/approval`, { requiresApproval: true })).body, { ok: true, requiresApproval: true });
  assert.equal((await row()).requires_approval, 1);

  const otp = await http.patch(`/api/links/${id}/otp`, { requiresOtp: true, allowedEmails: ['Ann@Example.COM'], allowedDomains: ['@Partner.IO'] });
  assert.deepEqual(otp.body, { ok: true });
  assert.deepEqual(JSON.parse((await row()).allowed_emails), ['ann@example.com']);
  assert.deepEqual(JSON.parse((await row()).allowed_domains), ['partner.io']);
  assert.equal((await http.patch(`/api/links/${id}/otp`, { requiresOtp: true, allowedEmails: [], allowedDomains: [] })).status, 422);
  assert.equal((await http.patch(`/api/links/${id}/otp`, { requiresOtp: true, allowedEmails: ['nope'] })).status, 400);
  assert.equal((await http.patch(`/api/links/${id}/otp`, { requiresOtp: 'yes' })).status, 400);

  assert.deepEqual((await http.patch(`/api/links/${id}/booking-url`, { booking_url: 'https://cal.example.com/x' })).body, { ok: true });
  assert.equal((await row()).booking_url, 'https://cal.example.com/x');
  assert.equal((await http.patch(`/api/links/${id}/booking-url`, { booking_url: 'ftp://x' })).status, 400);
  assert.deepEqual((await http.patch(`/api/links/${id}/booking-url`, { booking_url: '' })).body, { ok: true });
  assert.equal((await row()).booking_url, null);

  assert.equal((await http.patch(`/api/links/${id}/watermark`, {})).status, 400);
});

test('expiry: 410 on the API, listed under tab=expired, blobs swept after the retention period', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now, env: { EXPIRED_RETENTION_DAYS: '30' } });
  const { http } = await app.createAccount('professional');
  const shortLived = await createLink(http, 'gone soon', 'a.txt', { expiration: '1h' });
  const longLived = await createLink(http, 'stays', 'b.txt', { expiration: '7d' });

  now += HOUR + 1;
  assert.equal((await http.get(`/api/links/${shortLived}`)).status, 410);
  assert.equal((await http.patch(`/api/links/${shortLived}/watermark`, { hasWatermark: true })).status, 410);
  assert.equal((await http.post(`/api/links/${shortLived}/download-tokens`, {})).status, 410);
  assert.equal((await http.get(`/api/links/${longLived}`)).status, 200);
  assert.deepEqual(
    (await http.get('/api/links')).body.links.map((l: any) => l.id),
    [longLived],
  );
  const expired = await http.get('/api/links?tab=expired');
  assert.deepEqual(
    expired.body.links.map((l: any) => l.id),
    [shortLived],
  );
  assert.equal(expired.body.pagination.total, 1);

  const links = app.runtime.services.links;
  assert.equal(await links.purgeExpiredBlobs(30 * 86_400_000), 0, 'inside the retention period');
  now += 30 * 86_400_000;
  assert.equal(await links.purgeExpiredBlobs(30 * 86_400_000), 1, 'the 1h link expired 30 days ago; the 7d one only 23');
  assert.equal((await listFiles(path.join(app.dataDir, 'blobs', 'links'))).length, 1);
  now += 7 * 86_400_000;
  assert.equal(await links.purgeExpiredBlobs(30 * 86_400_000), 1);
  assert.deepEqual(await listFiles(path.join(app.dataDir, 'blobs', 'links')), []);
  assert.equal((await http.get('/api/links?tab=expired')).body.pagination.total, 2, 'metadata is kept');
});

test('a new version keeps the id and URL; the old blob stays until the orphan sweep, for downloads that began before the switch', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'version one', 'v1.txt');
  const blobsOf = () => listFiles(path.join(app.dataDir, 'blobs', 'links', id));
  const [firstBlob] = await blobsOf();

  const second = randomBytes(300_000);
  const replaced = await http.put(`/api/links/${id}/file`, uploadForm(second, 'v2.dat'));
  assert.deepEqual(replaced.body, { ok: true, version: 2 });
  assert.equal((await blobsOf()).length, 2, 'the old blob is still there for a download under way');
  const anHourAgo = new Date(Date.now() - ORPHAN_GRACE_MS - 60_000);
  await utimes(firstBlob!, anHourAgo, anHourAgo);
  assert.equal(await app.runtime.orphanSweeper.sweep(), 1);
  const blobs = await blobsOf();
  assert.equal(blobs.length, 1);
  assert.notEqual(blobs[0], firstBlob);
  assert.equal((await http.get(`/api/links/${id}`)).body.name, 'v2.dat');
  const token = await downloadToken(http, id);
  assert.equal(sha256((await downloadOriginal(app.url, id, token)).body), sha256(second));

  assert.deepEqual((await http.post(`/api/links/${id}/file`, uploadForm('third', 'v3.txt'))).body, { ok: true, version: 3 });
  const refused = await http.put(`/api/links/${id}/file`, uploadForm('x', 'evil.exe'));
  assert.equal(refused.status, 422);
  assert.equal((await http.put(`/api/links/${id}/file`, new FormData())).status, 400);
  assert.equal((await blobsOf()).length, 2, 'refused versions leave no blob: version 2, until the sweep, and version 3');
  assert.equal((await http.get(`/api/links/${id}`)).body.name, 'v3.txt');
});

test('data rooms: made of own links, listed, deletable without their children', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const other = await app.createAccount('professional');
  const a = await createLink(http, 'a', 'a.txt');
  const b = await createLink(http, 'b', 'b.txt');
  const foreign = await createLink(other.http, 'c', 'c.txt');

  const room = await http.post('/api/links/room', { name: 'Series A data room', children_ids: [a, b] });
  assert.equal(room.status, 200);
  assert.equal(room.body.ok, true);
  assert.match(room.body.id, /^[0-9A-Za-z]{16,}$/);
  assert.equal(room.body.viewer_url, `${app.runtime.config.publicUrl}/v/${room.body.id}`);
  const metadata = await http.get(`/api/links/${room.body.id}`);
  assert.equal(metadata.body.name, 'Series A data room');
  assert.ok((await http.get('/api/links')).body.links.some((l: any) => l.id === room.body.id && l.kind === 'room'));
  assert.deepEqual(
    (await app.runtime.services.links.roomChildren(room.body.id)).map((child) => child.id),
    [a, b],
  );

  const missing = await http.post('/api/links/room', { name: 'x', children_ids: [a, foreign] });
  assert.equal(missing.status, 404);
  assert.match(missing.body.error, new RegExp(foreign));
  assert.equal((await http.post('/api/links/room', { name: 'x', children_ids: [] })).status, 400);
  assert.equal((await http.post('/api/links/room', { name: 'x', children_ids: [room.body.id] })).status, 422);

  await http.delete(`/api/links/${a}`);
  assert.deepEqual(
    (await app.runtime.services.links.roomChildren(room.body.id)).map((child) => child.id),
    [b],
    'a deleted child leaves its rooms',
  );
  const asFile = await http.put(`/api/links/${room.body.id}/file`, uploadForm('not a room', 'swap.txt'));
  assert.equal(asFile.status, 422, 'a data room has no file to replace');
  assert.match(asFile.body.error, /is a data room/);
  const unchanged = (await http.get(`/api/links/${room.body.id}`)).body;
  assert.equal(unchanged.name, 'Series A data room');
  assert.equal(unchanged.mime, 'application/vnd.linkvault.room');
  assert.deepEqual(await listFiles(path.join(app.dataDir, 'blobs', 'links', room.body.id)), [], 'nothing stored');
  assert.deepEqual((await http.delete(`/api/links/${room.body.id}`)).body, { ok: true });
  assert.equal((await http.get(`/api/links/${b}`)).status, 200, 'children outlive their room');
});

test('download tokens: original bytes with Range support; spent, unknown and expired tokens are 403', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const content = randomBytes(3 * 65536 + 100);
  const id = await createLink(http, content, 'Relatório €.pdf');

  const issued = await http.post(`/api/links/${id}/download-tokens`, { uses: 12, ttlSeconds: 600 });
  assert.equal(issued.status, 200);
  assert.equal(issued.body.uses, 12);
  assert.ok(Date.parse(issued.body.expires_at) - now === 600_000);
  const token = issued.body.token;

  const whole = await downloadOriginal(app.url, id, token);
  assert.equal(whole.response.status, 200);
  assert.equal(sha256(whole.body), sha256(content));
  assert.equal(whole.response.headers.get('content-length'), String(content.length));
  assert.equal(
    whole.response.headers.get('content-disposition'),
    `attachment; filename="Relat_rio _.pdf"; filename*=UTF-8''Relat%C3%B3rio%20%E2%82%AC.pdf`,
  );
  assert.equal(whole.response.headers.get('x-content-type-options'), 'nosniff');

  const boundaries: Array<[number, number]> = [
    [0, 0],
    [65535, 65536],
    [65536, 65536 * 2 - 1],
    [65530, 65536 * 2 + 10],
    [content.length - 1, content.length - 1],
    [100, 65535],
  ];
  for (const [start, end] of boundaries) {
    const part = await downloadOriginal(app.url, id, token, { range: `bytes=${start}-${end}` });
    assert.equal(part.response.status, 206, `${start}-${end}`);
    assert.equal(part.response.headers.get('content-range'), `bytes ${start}-${end}/${content.length}`);
    assert.ok(part.body.equals(content.subarray(start, end + 1)), `${start}-${end}`);
  }
  const unsatisfiable = await downloadOriginal(app.url, id, token, { range: `bytes=${content.length}-` });
  assert.equal(unsatisfiable.response.status, 416);

  const spent = await downloadOriginal(app.url, id, token);
  assert.equal(spent.response.status, 200, 'the 9th use');
  for (let i = 0; i < 3; i++) await downloadOriginal(app.url, id, token);
  const refused = await downloadOriginal(app.url, id, token);
  assert.equal(refused.response.status, 403, 'all 12 uses spent');
  assert.match(JSON.parse(refused.body.toString()).error, /token/);

  assert.equal((await downloadOriginal(app.url, id, `lvd_${'x'.repeat(40)}`)).response.status, 403);
  assert.equal((await fetch(`${app.url}/api/links/${id}/download-original`)).status, 403);
  const shortLived = await downloadToken(http, id);
  now += 86_400_000 + 1;
  assert.equal((await downloadOriginal(app.url, id, shortLived)).response.status, 403, 'expired token');
  const otherLink = await createLink(http, 'other', 'o.txt');
  const foreignToken = await downloadToken(http, otherLink);
  assert.equal((await downloadOriginal(app.url, id, foreignToken)).response.status, 403, "another link's token");
});

test('expired download tokens are deleted by the hourly token sweep; a live one stays and still downloads', async (t) => {
  let now = Date.now();
  const app = await startApp(t, { clock: () => now });
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'the original', 'o.txt');
  const tokenCount = async () => (await app.runtime.database.db.selectFrom('download_tokens').select('id').execute()).length;
  for (let n = 0; n < 3; n++) assert.equal((await http.post(`/api/links/${id}/download-tokens`, { ttlSeconds: 600 })).status, 200);
  const lasting = (await http.post(`/api/links/${id}/download-tokens`, { ttlSeconds: 7200 })).body.token;
  assert.equal(await app.runtime.tokenSweeps.download.sweep(), 0, 'none has expired');

  now += 601_000;
  assert.equal(await app.runtime.tokenSweeps.download.sweep(), 3);
  assert.equal(await tokenCount(), 1);
  const download = await downloadOriginal(app.url, id, lasting);
  assert.equal(download.response.status, 200);
  assert.equal(download.body.toString(), 'the original');
});

test("a token asked for a link its owner deletes meanwhile is 404, never the database's refusal as a 500", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'x', 'x.txt');
  // The owner's delete lands between the token request's check of the link and its write.
  const { links } = app.runtime.services;
  const ownLink = links.ownLink;
  let deletePending = true;
  links.ownLink = async (...args) => {
    const link = await ownLink(...args);
    if (deletePending) {
      deletePending = false;
      await http.delete(`/api/links/${id}`);
    }
    return link;
  };
  const response = await http.post(`/api/links/${id}/download-tokens`, { uses: 1 });
  assert.equal(response.status, 404);
  assert.match(response.body.error, /deleted while it ran/);
  assert.equal((await http.get(`/api/links/${id}`)).status, 404, 'the owner deleted it meanwhile');
});

test("tenancy: every link route answers 404 for another account's link", async (t) => {
  const app = await startApp(t);
  const alice = await app.createAccount('professional');
  const bob = await app.createAccount('professional');
  const id = await createLink(alice.http, 'private', 'p.txt');
  const cases: Array<[string, string, unknown]> = [
    ['GET', `/api/links/${id}`, undefined],
    ['PATCH', `/api/links/${id}`, { isActive: false, name: 'mine.txt' }],
    ['PATCH', `/api/links/${id}/active`, { isActive: false }],
    ['PATCH', `/api/links/${id}/password`, { password: 'x' }],
    ['PATCH', `/api/links/${id}/watermark`, { hasWatermark: true }],
    ['PATCH', `/api/links/${id}/approval`, { requiresApproval: true }],
    ['PATCH', `/api/links/${id}/otp`, { requiresOtp: true, allowedEmails: ['x@example.com'] }],
    ['PATCH', `/api/links/${id}/booking-url`, { booking_url: '' }],
    ['PUT', `/api/links/${id}/file`, uploadForm('x', 'x.txt')],
    ['POST', `/api/links/${id}/download-tokens`, {}],
    ['POST', '/api/links/room', { name: 'steal', children_ids: [id] }],
    ['DELETE', `/api/links/${id}`, undefined],
  ];
  for (const [method, route, body] of cases) {
    const response = await bob.http.request(method, route, body);
    assert.equal(response.status, 404, `${method} ${route}`);
  }
  assert.equal((await bob.http.get('/api/links')).body.pagination.total, 0);
  const { settings, document, viewer_url: _viewerUrl, ...untouched } = (await alice.http.get(`/api/links/${id}`)).body;
  assert.ok(document);
  assert.deepEqual(untouched, { id, name: 'p.txt', mime: 'text/plain', views: 0, requires_password: false, has_watermark: false });
  assert.equal(settings.isActive, true);
});

test("data rooms: listed newest first with their sizes, their links read and rearranged, another account's refused", async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const other = await app.createAccount('professional');
  const [a, b, c] = [await createLink(http, 'a', 'a.txt'), await createLink(http, 'b', 'b.txt'), await createLink(http, 'c', 'c.txt')];
  const foreign = await createLink(other.http, 'x', 'x.txt');
  assert.deepEqual((await http.get('/api/links/rooms')).body, { rooms: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } });

  const first = (await http.post('/api/links/room', { name: 'Seed round', children_ids: [a] })).body.id;
  const second = (await http.post('/api/links/room', { name: 'Series A', children_ids: [a, b] })).body.id;
  const listed = (await http.get('/api/links/rooms?limit=1')).body;
  assert.equal(listed.pagination.total, 2);
  assert.equal(listed.pagination.totalPages, 2);
  assert.equal(listed.rooms.length, 1);
  const [newest] = listed.rooms;
  assert.deepEqual(
    { id: newest.id, name: newest.name, links: newest.links, is_active: newest.is_active, is_expired: newest.is_expired },
    { id: second, name: 'Series A', links: 2, is_active: true, is_expired: false },
  );
  assert.equal(newest.viewer_url, `${app.runtime.config.publicUrl}/v/${second}`);
  assert.equal((await http.get('/api/links/rooms?page=2&limit=1')).body.rooms[0].id, first);
  assert.deepEqual((await other.http.get('/api/links/rooms')).body.rooms, [], "another account's rooms are not listed");

  const children = (await http.get(`/api/links/${second}/children`)).body.children;
  assert.deepEqual(
    children.map((child: { id: string; name: string }) => [child.id, child.name]),
    [
      [a, 'a.txt'],
      [b, 'b.txt'],
    ],
  );
  assert.equal(children[0].viewer_url, `${app.runtime.config.publicUrl}/v/${a}`);

  const rearranged = await http.put(`/api/links/${second}/children`, { children_ids: [c, a, c] });
  assert.deepEqual(rearranged.body, { ok: true, children_ids: [c, a] }, 'a link is listed once, in the order given');
  assert.deepEqual(
    (await http.get(`/api/links/${second}/children`)).body.children.map((child: { id: string }) => child.id),
    [c, a],
  );
  assert.equal((await http.get(`/api/links/${b}`)).status, 200, 'a link left out of the room is not deleted');
  const audited = await app.runtime.database.db.selectFrom('audit_log').select('action').where('target_id', '=', second).execute();
  assert.ok(
    audited.some((entry) => entry.action === 'link.updated'),
    'the change is audited',
  );

  // Refusals: nothing changes on any of them.
  const refusals: Array<[string, unknown, number]> = [
    [second, { children_ids: [a, foreign] }, 404],
    [second, { children_ids: [first] }, 422],
    [second, { children_ids: [] }, 400],
    [a, { children_ids: [b] }, 422],
  ];
  for (const [room, body, status] of refusals) {
    const refused = await http.put(`/api/links/${room}/children`, body);
    assert.equal(refused.status, status, JSON.stringify(body));
    assert.match(refused.body.error, /\S/);
  }
  assert.equal((await http.get(`/api/links/${a}/children`)).status, 422, "a file's link has no children");
  assert.equal((await other.http.get(`/api/links/${second}/children`)).status, 404);
  assert.equal((await other.http.put(`/api/links/${second}/children`, { children_ids: [foreign] })).status, 404);
  assert.deepEqual(
    (await http.get(`/api/links/${second}/children`)).body.children.map((child: { id: string }) => child.id),
    [c, a],
  );
});

test('download-original is limited per client IP, so tokens cannot be guessed in bulk', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, 'x', 'x.txt');
  const statuses: number[] = [];
  for (let i = 0; i < 121; i++)
    statuses.push((await downloadOriginal(app.url, id, `lvd_${'g'.repeat(36)}${String(i).padStart(4, '0')}`)).response.status);
  assert.deepEqual([...new Set(statuses.slice(0, 120))], [403]);
  assert.equal(statuses[120], 429);
});
