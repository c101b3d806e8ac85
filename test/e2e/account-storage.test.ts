import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { startApp } from '../helpers/app.js';
import { closeBrowser } from '../helpers/browser.js';
import { checkScreen, DESKTOP, openScreen, PHONE, signedInDashboard } from '../helpers/dashboard.js';
import { listFiles, uploadFile, uploadForm } from '../helpers/files.js';

const KB = 1024;

after(closeBrowser);

test('ACCOUNT_STORAGE_MB: an upload past the account’s room is refused with 413 and nothing is kept; a replacement counts the file it frees', async (t) => {
  const app = await startApp(t, { env: { ACCOUNT_STORAGE_MB: '1' } });
  const { http } = await app.createAccount();
  const other = await app.createAccount();

  const first = await uploadFile(http, randomBytes(600 * KB), 'first.txt');
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual((await http.get('/api/links/storage')).body, { usedBytes: 600 * KB, limitBytes: 1024 * KB });

  const blobsBefore = await listFiles(app.dataDir);
  const refused = await uploadFile(http, randomBytes(600 * KB), 'second.txt');
  assert.equal(refused.status, 413);
  assert.equal(
    refused.body.error,
    "This account's storage is full: its files take 614 kB of its 1.0 MB and this one needs 614 kB. Delete links you no longer need, or ask whoever runs this linkvault for more room",
  );
  assert.equal((await http.get('/api/links')).body.pagination.total, 1, 'no link was made');
  assert.deepEqual(await listFiles(app.dataDir), blobsBefore, 'nor any file kept');
  assert.equal((await uploadFile(other.http, randomBytes(600 * KB), 'theirs.txt')).status, 200, 'each account has its own room');

  // The new version takes the old one's place: 900 KB fits where 600 + 900 would not.
  const replaced = await http.put(`/api/links/${first.body.id}/file`, uploadForm(randomBytes(900 * KB), 'first-v2.txt'));
  assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
  assert.equal((await http.get('/api/links/storage')).body.usedBytes, 900 * KB);
  const tooBig = await http.put(`/api/links/${first.body.id}/file`, uploadForm(randomBytes(1100 * KB), 'first-v3.txt'));
  assert.equal(tooBig.status, 413);

  assert.equal((await http.delete(`/api/links/${first.body.id}`)).status, 200);
  assert.equal((await http.get('/api/links/storage')).body.usedBytes, 0, 'a deleted link frees its room');
  assert.equal((await uploadFile(http, randomBytes(600 * KB), 'again.txt')).status, 200);
});

test('two uploads at once cannot both take the last room; without ACCOUNT_STORAGE_MB there is no limit', async (t) => {
  const app = await startApp(t, { env: { ACCOUNT_STORAGE_MB: '1' } });
  const { http } = await app.createAccount();
  const statuses = (await Promise.all([1, 2].map((n) => uploadFile(http, randomBytes(700 * KB), `race-${n}.txt`)))).map((answer) => answer.status);
  assert.deepEqual(statuses.sort(), [200, 413]);
  assert.equal((await http.get('/api/links/storage')).body.usedBytes, 700 * KB);

  const unlimited = await startApp(t);
  const account = await unlimited.createAccount();
  assert.equal((await uploadFile(account.http, randomBytes(2 * 1024 * KB), 'big.txt')).status, 200);
  assert.deepEqual((await account.http.get('/api/links/storage')).body, { usedBytes: 2 * 1024 * KB, limitBytes: null });
});

for (const viewport of [DESKTOP, PHONE]) {
  test(`upload screen at ${viewport.width} px: the account's room is shown, and a file past it fails with the API's sentence`, async (t) => {
    const app = await startApp(t, { env: { ACCOUNT_STORAGE_MB: '1' } });
    const { page } = await signedInDashboard(t, app, { viewport });
    await openScreen(page, app, '/app/documents/upload', 'Upload files');
    await page.getByText("This account's files take 0 B of its 1.0 MB.").waitFor();
    const input = page.getByLabel('Drop files here, or choose files');
    await input.setInputFiles([{ name: 'deck.txt', mimeType: 'text/plain', buffer: Buffer.alloc(600 * KB, 'a') }]);
    await page.getByText("This account's files take 614 kB of its 1.0 MB.").waitFor();
    await input.setInputFiles([{ name: 'appendix.txt', mimeType: 'text/plain', buffer: Buffer.alloc(600 * KB, 'b') }]);
    await page
      .getByRole('alert')
      .getByText(/This account's storage is full/)
      .waitFor();
    assert.equal(await page.getByRole('meter').evaluate((meter) => (meter as unknown as { value: number }).value), 600 * KB);
    await checkScreen(page, `upload-storage-full-${viewport.width}`);
  });
}
