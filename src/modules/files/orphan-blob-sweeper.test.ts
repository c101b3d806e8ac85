import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import sharp from 'sharp';
import { startApp } from '../../../test/helpers/app.js';
import { createLink, downloadOriginal, downloadToken } from '../../../test/helpers/files.js';
import { createLocalBlobStore } from '../../infra/storage/local-store.js';
import { ORPHAN_GRACE_MS } from './orphan-blob-sweeper.js';

test('the orphan sweep deletes link blobs no row points at once past the grace, and keeps young ones and every referenced one', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const kept = await createLink(http, 'still here', 'kept.txt');
  const blobsDir = path.join(app.dataDir, 'blobs');
  const store = createLocalBlobStore(blobsDir);
  const put = (key: string) => store.put(key, Readable.from([Buffer.from('left by a crash')]));
  // A replacement that died before its commit, a new link that died before its row, and one still committing.
  await put(`links/${kept}/v2-crashed1`);
  await put('links/NoSuchLink0000000000/v1-crashed2');
  await put('links/Uploading000000000000/v1-young');
  const old = new Date(Date.now() - ORPHAN_GRACE_MS - 60_000);
  for (const key of [`links/${kept}/v2-crashed1`, 'links/NoSuchLink0000000000/v1-crashed2']) await fs.utimes(path.join(blobsDir, key), old, old);
  const referenced = (await app.runtime.database.db.selectFrom('links').select('blob_key').where('id', '=', kept).executeTakeFirstOrThrow())
    .blob_key!;
  await fs.utimes(path.join(blobsDir, referenced), old, old);

  assert.equal(await app.runtime.orphanSweeper.sweep(), 2);
  const keys: string[] = [];
  for await (const entry of store.entries('links/')) keys.push(entry.key);
  assert.deepEqual(keys.sort(), [referenced, 'links/Uploading000000000000/v1-young'].sort());
  const { response } = await downloadOriginal(app.url, kept, await downloadToken(http, kept));
  assert.equal(response.status, 200, 'the referenced blob is untouched');
  assert.equal(await app.runtime.orphanSweeper.sweep(), 0, 'a second pass finds nothing');
});

test('the orphan sweep also deletes logo blobs no branding row points at, and keeps the account’s logo', async (t) => {
  const app = await startApp(t);
  const { http, accountId } = await app.createAccount('business');
  const logo = await sharp({ create: { width: 40, height: 20, channels: 4, background: { r: 10, g: 120, b: 200, alpha: 1 } } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('logo', new Blob([new Uint8Array(logo)]), 'logo.png');
  assert.equal((await http.post('/api/branding', form)).status, 200);

  const blobsDir = path.join(app.dataDir, 'blobs');
  const store = createLocalBlobStore(blobsDir);
  // A logo stored by a request that died before its row changed.
  const orphan = `branding/${accountId}/logo-crashed00000.png`;
  await store.put(orphan, Readable.from([logo]));
  const old = new Date(Date.now() - ORPHAN_GRACE_MS - 60_000);
  const stored: string[] = [];
  for await (const entry of store.entries('branding/')) stored.push(entry.key);
  for (const key of stored) await fs.utimes(path.join(blobsDir, key), old, old);

  assert.equal(await app.runtime.orphanSweeper.sweep(), 1);
  const left: string[] = [];
  for await (const entry of store.entries('branding/')) left.push(entry.key);
  assert.deepEqual(
    left,
    stored.filter((key) => key !== orphan),
  );
  const logoUrl = (await http.get('/api/branding')).body.logo_url as string;
  assert.equal((await fetch(`${app.url}${logoUrl}`)).status, 200, 'the account’s logo is still served');
});
