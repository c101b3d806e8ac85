import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { readMark, HAS_TESSERACT } from '../../../../test/helpers/ocr.js';
import { makePdf } from '../../../../test/helpers/pdf.js';
import { openPdf } from '../../../infra/pdf/pdf-renderer.js';
import { drawStampSprite, stampPageImage } from './index.js';
import { blendSprite } from './sprite.js';

const stamp = { identity: 'ana@example.org', at: new Date('2026-11-24T10:00:00Z'), viewId: 'K7Q2ZP' };

/** A page as the renderer stores it: PDFium's pixels as WebP. */
async function renderedPage(): Promise<Buffer> {
  const pdf = await openPdf(await makePdf(1));
  try {
    const page = await pdf.renderPage(1, 1600);
    return await sharp(page.rgba, { raw: { width: page.width, height: page.height, channels: 4 } })
      .webp({ quality: 80, effort: 2 })
      .toBuffer();
  } finally {
    await pdf.close();
  }
}

/** The mask of non-zero pixels, grown by `radius` pixels in each direction (a square neighbourhood). */
function grow(mask: Buffer, width: number, height: number, radius: number): Uint8Array {
  const rows = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (mask[y * width + x] === 0) continue;
      for (let dx = Math.max(0, x - radius); dx <= Math.min(width - 1, x + radius); dx++) rows[y * width + dx] = 1;
    }
  }
  const grown = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (rows[y * width + x] === 0) continue;
      for (let dy = Math.max(0, y - radius); dy <= Math.min(height - 1, y + radius); dy++) grown[dy * width + x] = 1;
    }
  }
  return grown;
}

const grey = (image: Buffer) => sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });

test('a stamped page differs from the clean page only where the mark is drawn', async () => {
  const clean = await renderedPage();
  const { width, height } = await sharp(clean).metadata();
  const sprite = await drawStampSprite(stamp, width, height);
  const [before, after] = await Promise.all([grey(clean), grey(await stampPageImage(clean, sprite))]);
  // Where the mark has any ink (its dark fill and its light outline both move a mid grey), grown by 3 px for the encoder's blur.
  const canvas = Buffer.alloc(width * height * 3, 128);
  blendSprite(canvas, width, height, 3, sprite);
  const inked = Buffer.alloc(width * height);
  for (let i = 0; i < inked.length; i++) inked[i] = canvas[i * 3] === 128 ? 0 : 1;
  const ink = grow(inked, width, height, 3);
  let changed = 0;
  let outside = 0;
  for (let i = 0; i < before.data.length; i++) {
    if (Math.abs(before.data[i]! - after.data[i]!) <= 24) continue;
    changed++;
    if (ink[i] === 0) outside++;
  }
  assert.ok(changed > 10_000, `the mark changes the page (${changed} pixels)`);
  assert.equal(outside, 0, `${outside} of ${changed} changed pixels lie outside the mark`);
});

test(
  'the stamp is legible: OCR reads the visitor, the time and the view id back',
  { skip: !HAS_TESSERACT && 'tesseract-ocr is not installed' },
  async () => {
    const clean = await renderedPage();
    const { width, height } = await sharp(clean).metadata();
    const text = await readMark(await stampPageImage(clean, await drawStampSprite(stamp, width, height)));
    for (const part of [/ana@example\.org/, /2026-11-24 10:00 UTC/, /view K7Q2ZP/]) assert.match(text, part, text);
  },
);
