import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../../test/helpers/app.js';
import { createLink, sha256 } from '../../../test/helpers/files.js';
import { makePdf, pdfPageTexts } from '../../../test/helpers/pdf.js';
import { VisitorClient } from '../../../test/helpers/visitor.js';

/** A visitor holding a view session of the link (no gates on it). */
async function viewing(url: string, linkId: string) {
  const visitor = new VisitorClient(url);
  const page = await visitor.get(`/v/${linkId}`);
  assert.equal(page.status, 200);
  return { visitor, page: page.text };
}

test('allowDownload: off, no button and 403; on, the original as an attachment, counted as a download', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const pdf = await makePdf(2);
  const closed = await createLink(http, pdf, 'Closed.pdf');
  const open = await createLink(http, pdf, 'Open.pdf', { allowDownload: '1' });

  const shut = await viewing(app.url, closed);
  assert.doesNotMatch(shut.page, /\/download"/);
  const refused = await shut.visitor.get(`/v/${closed}/download`);
  assert.equal(refused.status, 403);
  assert.equal((await new VisitorClient(app.url).get(`/v/${open}/download`)).status, 403, 'no session, no file');

  const { visitor, page } = await viewing(app.url, open);
  assert.match(page, new RegExp(`href="/v/${open}/download" download>Download<`));
  const downloaded = await visitor.get(`/v/${open}/download`);
  assert.equal(downloaded.status, 200);
  assert.match(downloaded.headers.get('content-disposition') ?? '', /^attachment; filename="Open.pdf"/);
  assert.equal(sha256(downloaded.bytes), sha256(pdf), 'the original, unchanged');
  const analytics = (await http.get('/api/analytics/global')).body;
  assert.equal(analytics.metrics.totalDownloads, 1);
  assert.equal(analytics.recentActivity[0].type, 'link.downloaded');

  // Selling and giving away do not mix.
  const sold = await http.patch(`/api/links/${open}`, { requirePaymentToDownload: true, downloadPrice: 500 });
  assert.equal(sold.status, 422);
  assert.match(sold.body.error, /turn allowDownload off/);
  assert.equal((await http.patch(`/api/links/${closed}`, { allowDownload: true })).body.settings.allowDownload, true);
});

test('a download fetched in ranges (resumed, or by a download manager) counts once: only the part from the first byte', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const pdf = await makePdf(2);
  const open = await createLink(http, pdf, 'Open.pdf', { allowDownload: '1' });
  const { visitor } = await viewing(app.url, open);
  const quarter = Math.ceil(pdf.length / 4);
  const parts: Buffer[] = [];
  for (let start = 0; start < pdf.length; start += quarter) {
    const part = await visitor.get(`/v/${open}/download`, { range: `bytes=${start}-${Math.min(start + quarter, pdf.length) - 1}` });
    assert.equal(part.status, 206);
    parts.push(part.bytes);
  }
  assert.equal(sha256(Buffer.concat(parts)), sha256(pdf));
  assert.equal((await http.get('/api/analytics/global')).body.metrics.totalDownloads, 1);
  assert.equal((await visitor.get(`/v/${open}/download`)).status, 200);
  assert.equal((await http.get('/api/analytics/global')).body.metrics.totalDownloads, 2, 'a whole download again is another');
});

test('a watermarked link downloads a copy stamped for the visitor, cut to its preview pages', async (t) => {
  const app = await startApp(t);
  const { http } = await app.createAccount('professional');
  const id = await createLink(http, await makePdf(4), 'Terms.pdf', { allowDownload: '1', hasWatermark: '1', requireEmail: '1', previewPages: '2' });
  const visitor = new VisitorClient(app.url);
  await visitor.get(`/v/${id}`);
  await visitor.post(`/v/${id}/email`, { email: 'ana@example.org' });
  assert.equal((await visitor.get(`/v/${id}`)).status, 200);
  const downloaded = await visitor.get(`/v/${id}/download`);
  assert.equal(downloaded.status, 200);
  assert.equal(downloaded.headers.get('content-type'), 'application/pdf');
  assert.match(downloaded.headers.get('content-disposition') ?? '', /^attachment/);
  const pages = await pdfPageTexts(downloaded.bytes);
  assert.equal(pages.length, 2, 'only the preview pages');
  for (const text of pages) assert.match(text, /ana@example\.org/, 'every page carries the visitor');
});
