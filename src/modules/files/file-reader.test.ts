import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { test, type TestContext } from 'node:test';
import { createLocalBlobStore } from '../../infra/storage/local-store.js';
import { createFileIntake } from './file-intake.js';
import { createFileReader } from './file-reader.js';

async function storeIn(t: TestContext) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'linkvault-reader-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  const blobs = createLocalBlobStore(dir);
  const masterKey = randomBytes(32);
  return { dir, intake: createFileIntake({ blobs, masterKey }), reader: createFileReader({ blobs, masterKey }) };
}

test('a whole file is read back in one buffer, the same bytes as its stream, across many segments', async (t) => {
  const { intake, reader } = await storeIn(t);
  for (const size of [0, 1, 65_536, 1_000_003]) {
    const plaintext = randomBytes(size);
    const file = await intake.seal(`pages/file-${size}`, plaintext);
    const whole = await reader.read(file);
    assert.ok(whole.equals(plaintext), `${size} bytes read whole`);
    assert.ok((await buffer(await reader.open(file))).equals(plaintext), `${size} bytes streamed`);
  }
});

test('a tampered blob is refused, never read as other bytes', async (t) => {
  const { dir, intake, reader } = await storeIn(t);
  const file = await intake.seal('pages/tampered', randomBytes(200_000));
  const blobPath = path.join(dir, 'pages/tampered');
  const ciphertext = await fs.readFile(blobPath);
  ciphertext[100_000] = ciphertext[100_000]! ^ 1;
  await fs.writeFile(blobPath, ciphertext);
  await assert.rejects(reader.read(file));
});
