import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { makePdf, makeSlowPdf } from '../../../test/helpers/pdf.js';
import { openPdf, PdfOpenError, PdfPageTimeoutError, PdfRendererStoppedError } from './pdf-renderer.js';

/** Pages of photographic noise: slow for PDFium to draw. */
async function densePdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let n = 0; n < pages; n++) {
    const jpeg = await sharp({
      create: { width: 800, height: 800, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    })
      .jpeg({ quality: 90 })
      .toBuffer();
    doc.addPage([595, 842]).drawImage(await doc.embedJpg(jpeg), { x: 20, y: 100, width: 555, height: 555 });
  }
  return Buffer.from(await doc.save());
}

test('pages are drawn at the width asked, in proportion, with their text', async () => {
  const pdf = await openPdf(await makePdf(3));
  try {
    assert.equal(pdf.pageCount, 3);
    const page = await pdf.renderPage(2, 800);
    assert.deepEqual([page.width, page.height, page.rgba.length], [800, 1132, 800 * 1132 * 4]);
    assert.match(await pdf.pageText(2), /PAGE 2/);
    await assert.rejects(pdf.renderPage(4, 800), /no page 4 of 3/);
  } finally {
    await pdf.close();
  }
});

test('damaged and password-protected PDFs are refused with their reason', async () => {
  const damaged = await openPdf(Buffer.from('%PDF-1.7\nnot really a PDF')).catch((error: unknown) => error);
  assert.ok(damaged instanceof PdfOpenError);
  assert.equal(damaged.reason, 'unreadable');
  // The drawing thread is still there for the next document.
  const pdf = await openPdf(await makePdf(1));
  assert.equal(pdf.pageCount, 1);
  await pdf.close();
});

test('documents open at once are drawn independently, and drawing leaves the server’s thread idle', async () => {
  const [dense, plain] = await Promise.all([densePdf(4), makePdf(2)]);
  const [a, b] = await Promise.all([openPdf(dense), openPdf(plain)]);
  try {
    const before = performance.eventLoopUtilization();
    const pages = await Promise.all([1, 2, 3, 4].map((number) => a.renderPage(number, 1600)));
    const busy = performance.eventLoopUtilization(before).utilization;
    assert.ok(pages.every((page) => page.width === 1600 && page.rgba.some((byte) => byte !== 255)));
    // PDFium draws in its own thread: this one only waits (busy all along when PDFium ran here).
    assert.ok(busy < 0.5, `the server's thread was busy ${(busy * 100).toFixed(0)} % of the drawing`);
    assert.match(await b.pageText(2), /PAGE 2/);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('a page past its time limit fails, the thread under it ends, and the next document is drawn by a new one', async () => {
  const [slow, plain] = await Promise.all([makeSlowPdf(2, 2), makePdf(2)]);
  const other = await openPdf(plain);
  const pdf = await openPdf(slow, { pageTimeoutMs: 300 });
  try {
    assert.equal((await pdf.renderPage(1, 800)).width, 800, 'its plain page is drawn in time');
    const late = await pdf.renderPage(2, 1600).catch((error: unknown) => error);
    assert.ok(late instanceof PdfPageTimeoutError, String(late));
    assert.equal(late.message, 'Page 2 took longer than 0.3 s to draw');
    await assert.rejects(other.pageText(1), PdfRendererStoppedError, 'a document of the ended thread says so');
  } finally {
    await Promise.all([pdf.close(), other.close()]);
  }
  const next = await openPdf(plain);
  assert.match(await next.pageText(2), /PAGE 2/);
  await next.close();
});
