import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PDFDocument, PDFName, PDFRawStream, StandardFonts, decodePDFRawStream, degrees, type PDFRef } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import {
  UnreadableImageError,
  UnreadablePdfError,
  canWatermark,
  canWatermarkImage,
  preparePdf,
  imageCopy,
  watermarkText,
  type WatermarkStamp,
} from './index.js';

const stamp: WatermarkStamp = { identity: 'zoë.müller@example.com', at: new Date('2026-11-22T14:03:59.999Z'), viewId: '7F3K9Q' };

async function makePdf(pages: number, decorate?: (doc: PDFDocument) => Promise<void> | void): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage(n % 2 === 0 ? [842, 595] : [595, 842]);
    page.drawText(`PAGE ${n}`, { x: 50, y: 500, size: 24, font });
  }
  await decorate?.(doc);
  return doc.save();
}

/** The text pdf.js extracts from each page: what a reader (or a scraper) gets out. */
async function pageTexts(bytes: Uint8Array): Promise<string[]> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  try {
    const texts: string[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const content = await (await pdf.getPage(n)).getTextContent();
      texts.push(content.items.map((item) => ('str' in item ? item.str : '')).join('\n'));
    }
    return texts;
  } finally {
    await pdf.destroy();
  }
}

const hexOf = (text: string) => Buffer.from(text, 'latin1').toString('hex').toUpperCase();

/** Every object in the file, streams decoded, referenced or not: what a curious visitor can dig out. */
async function everythingInFile(bytes: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(bytes);
  return doc.context
    .enumerateIndirectObjects()
    .map(([, object]) => (object instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(object).decode()).toString('latin1') : object.toString()))
    .join('\n');
}

test('the mark text names the visitor, the UTC minute and the view', () => {
  assert.equal(watermarkText(stamp), 'zoë.müller@example.com · 2026-11-22 14:03 UTC · view 7F3K9Q');
  assert.equal(watermarkText({ ...stamp, identity: ' 203.0.113.7\n' }), '203.0.113.7 · 2026-11-22 14:03 UTC · view 7F3K9Q');
});

test('every page carries the mark, non-ASCII identity included, and keeps its content', async () => {
  const original = await makePdf(5);
  const prepared = await preparePdf(original, { stamp });
  assert.equal(prepared.pageCount, 5);
  assert.equal(prepared.totalPages, 5);
  assert.notDeepEqual(Buffer.from(prepared.bytes), Buffer.from(original));

  const texts = await pageTexts(prepared.bytes);
  assert.equal(texts.length, 5);
  texts.forEach((text, index) => {
    assert.ok(text.includes(`PAGE ${index + 1}`), `page ${index + 1} keeps its text`);
    assert.ok(text.includes('zoë.müller@example.com'), `page ${index + 1} names the visitor: ${text.slice(0, 200)}`);
    assert.ok(text.includes('view 7F3K9Q'), `page ${index + 1} names the view`);
    assert.ok(text.includes('2026-11-22 14:03 UTC'), `page ${index + 1} carries the time`);
    assert.ok(text.split('zoë.müller@example.com').length - 1 >= 4, `page ${index + 1} is tiled, not stamped once`);
  });
  // The subset font keeps the copy small: a full DejaVu Sans would add ~700 KB.
  assert.ok(prepared.bytes.length - original.length < 60_000, `grew by ${prepared.bytes.length - original.length} bytes`);
});

test('rotated pages and pages with an offset crop box are marked too', async () => {
  const original = await makePdf(3, (doc) => {
    doc.getPage(1).setRotation(degrees(90));
    doc.getPage(2).setCropBox(100, 200, 300, 300);
  });
  const prepared = await preparePdf(original, { stamp });
  const texts = await pageTexts(prepared.bytes);
  assert.equal(texts.length, 3, 'every page is read back');
  texts.forEach((text, index) => assert.ok(text.includes('view 7F3K9Q'), `page ${index + 1} carries the mark: ${text.slice(0, 200)}`));

  const marked = await PDFDocument.load(prepared.bytes);
  assert.equal(marked.getPage(1).getRotation().angle, 90, 'the page keeps its /Rotate');
});

test('previewPages cuts the PDF to its first pages, and the cut pages are gone from the file', async () => {
  const original = await makePdf(5, async (doc) => {
    // A link and an outline entry pointing at page 4 must not drag it into the preview.
    const target = doc.getPage(3).ref;
    const link = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 100, 100], Dest: [target, PDFName.of('Fit')] }));
    doc.getPage(0).node.addAnnot(link);
    doc.catalog.set(PDFName.of('OpenAction'), doc.context.obj([target, PDFName.of('Fit')]));
    // Attachments belong to the whole document, not to the preview's pages.
    await doc.attach(new TextEncoder().encode('SECRET-ATTACHMENT'), 'appendix.txt', { mimeType: 'text/plain' });
  });

  const prepared = await preparePdf(original, { stamp, previewPages: 2 });
  assert.equal(prepared.pageCount, 2);
  assert.equal(prepared.totalPages, 5);
  const texts = await pageTexts(prepared.bytes);
  assert.equal(texts.length, 2);
  assert.ok(texts[0]!.includes('PAGE 1') && texts[1]!.includes('PAGE 2'));
  for (const text of texts) assert.ok(text.includes('zoë.müller@example.com'));

  const everything = await everythingInFile(prepared.bytes);
  assert.ok(everything.includes(hexOf('PAGE 2')), 'the search below can see page text');
  for (const cut of ['PAGE 3', 'PAGE 4', 'PAGE 5']) assert.ok(!everything.includes(hexOf(cut)), `${cut} is gone from the file`);
  assert.ok(!everything.includes('SECRET-ATTACHMENT'), 'attachments are gone');
  assert.ok((await everythingInFile(original)).includes('SECRET-ATTACHMENT'), 'the same search finds the attachment in the original');
});

test('previewPages without a stamp; a preview as long as the document keeps the original bytes', async () => {
  const original = await makePdf(5);
  const cut = await preparePdf(original, { previewPages: 2 });
  assert.deepEqual([cut.pageCount, cut.totalPages], [2, 5]);
  const texts = await pageTexts(cut.bytes);
  assert.equal(texts.length, 2);
  assert.ok(texts[0]!.includes('PAGE 1') && texts[1]!.includes('PAGE 2'));
  assert.ok(!texts.join('\n').includes('PAGE 3'));
  assert.ok(!texts.join('\n').includes('view'), 'no mark without a stamp');

  for (const previewPages of [5, 9, null, undefined]) {
    const untouched = await preparePdf(original, { previewPages });
    assert.deepEqual([untouched.pageCount, untouched.totalPages], [5, 5]);
    assert.equal(untouched.bytes, original, `previewPages ${previewPages} passes the original through`);
  }
  await assert.rejects(preparePdf(original, { previewPages: 0 }), RangeError);
});

/**
 * Pages that draw shared forms from one /Resources on the page tree, as some producers write
 * them: page n draws form Pn (text "CONFIDENTIAL PAGE n"), which draws image Imn, from the
 * page tree's dictionary; page 1 also fills a tiling pattern of its own resources.
 */
async function makeSharedResourcesPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const { context } = doc;
  const image = (n: number) =>
    context.register(
      context.flateStream(`IMAGE-BYTES-OF-PAGE-${n}`.padEnd(30, '.').slice(0, 27), {
        Type: 'XObject',
        Subtype: 'Image',
        Width: 3,
        Height: 3,
        ColorSpace: 'DeviceRGB',
        BitsPerComponent: 8,
      }),
    );
  const xObjects: Record<string, PDFRef> = {};
  for (let n = 1; n <= pages; n++) {
    xObjects[`Im${n}`] = image(n);
    xObjects[`P${n}`] = context.register(
      context.flateStream(`q 30 0 0 30 50 600 cm /Im${n} Do Q BT /F1 24 Tf 50 500 Td (CONFIDENTIAL PAGE ${n}) Tj ET`, {
        Type: 'XObject',
        Subtype: 'Form',
        BBox: [0, 0, 595, 842],
      }),
    );
  }
  const tile = context.register(
    context.flateStream('BT /F1 6 Tf (TILE) Tj ET', {
      PatternType: 1,
      PaintType: 1,
      TilingType: 1,
      BBox: [0, 0, 20, 20],
      XStep: 20,
      YStep: 20,
      Resources: { Font: { F1: font.ref }, XObject: xObjects },
    }),
  );
  doc.catalog.Pages().set(PDFName.of('Resources'), context.obj({ Font: { F1: font.ref }, XObject: xObjects, Pattern: { T1: tile } }));
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([595, 842]);
    page.node.delete(PDFName.of('Resources'));
    const drawing = n === 1 ? `/P1 Do /Pattern cs /T1 scn 0 0 100 100 re f` : `/P${n} Do`;
    page.node.set(PDFName.of('Contents'), context.register(context.flateStream(drawing)));
  }
  return doc.save();
}

test("previewPages: pages sharing one resource dictionary keep only what the kept pages draw, not the cut pages' forms and images", async () => {
  const original = await makeSharedResourcesPdf(3);
  const before = await everythingInFile(original);
  for (const cut of ['PAGE 2', 'PAGE 3']) assert.ok(before.includes(`CONFIDENTIAL ${cut}`), `the search can see ${cut} in the original`);

  for (const options of [{ previewPages: 1 }, { previewPages: 1, stamp }]) {
    const prepared = await preparePdf(original, options);
    assert.equal(prepared.pageCount, 1);
    const [text] = await pageTexts(prepared.bytes);
    assert.match(text!, /CONFIDENTIAL PAGE 1/);
    const everything = await everythingInFile(prepared.bytes);
    assert.ok(everything.includes('IMAGE-BYTES-OF-PAGE-1') && everything.includes('TILE'), "the kept page's image and pattern stay");
    for (const cut of ['PAGE 2', 'PAGE 3']) {
      assert.ok(!everything.includes(`CONFIDENTIAL ${cut}`), `${cut}'s form is gone from the file`);
      assert.ok(!everything.includes(`IMAGE-BYTES-OF-${cut.replace(' ', '-')}`), `${cut}'s image is gone from the file`);
    }
  }
});

test('characters the font lacks become "?" instead of invisible boxes', async () => {
  const prepared = await preparePdf(await makePdf(1), { stamp: { ...stamp, identity: '张伟@example.com' } });
  const [text] = await pageTexts(prepared.bytes);
  assert.ok(text!.includes('??@example.com · '), text!.slice(0, 200));
});

test('a damaged or encrypted PDF is an UnreadablePdfError (422)', async () => {
  for (const bytes of [new TextEncoder().encode('this is not a pdf'), new Uint8Array(0), (await makePdf(3)).slice(0, 200)]) {
    const error = await preparePdf(bytes, { stamp }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof UnreadablePdfError, `got ${String(error)}`);
    assert.equal(error.status, 422);
    assert.equal(error.reason, 'damaged');
  }

  const encrypted = await makePdf(1, (doc) => {
    // A trailer /Encrypt entry is what marks a PDF as encrypted for pdf-lib and readers.
    doc.context.trailerInfo.Encrypt = doc.context.register(doc.context.obj({ Filter: 'Standard', V: 2, R: 3 }));
  });
  await assert.rejects(preparePdf(encrypted, { stamp }), (error: unknown) => {
    assert.ok(error instanceof UnreadablePdfError);
    assert.equal(error.reason, 'encrypted');
    return true;
  });
});

async function changedPixels(before: Buffer, after: Buffer): Promise<number> {
  const [a, b] = await Promise.all([before, after].map((bytes) => sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })));
  assert.deepEqual([a!.info.width, a!.info.height], [b!.info.width, b!.info.height]);
  let changed = 0;
  for (let index = 0; index < a!.data.length; index += 3) {
    const delta =
      Math.abs(a!.data[index]! - b!.data[index]!) +
      Math.abs(a!.data[index + 1]! - b!.data[index + 1]!) +
      Math.abs(a!.data[index + 2]! - b!.data[index + 2]!);
    if (delta > 24) changed++;
  }
  return changed;
}

const background = { r: 200, g: 220, b: 240 };

test('a PNG and a JPEG come back marked, in their format, at their size', async () => {
  for (const format of ['png', 'jpeg'] as const) {
    const image = sharp({ create: { width: 640, height: 400, channels: 3, background } });
    const original = await (format === 'png' ? image.png() : image.jpeg()).toBuffer();
    const marked = await imageCopy(original, { stamp });
    assert.equal(marked.mime, `image/${format}`);
    assert.notDeepEqual(marked.bytes, original);
    const metadata = await sharp(marked.bytes).metadata();
    assert.deepEqual([metadata.format, metadata.width, metadata.height], [format, 640, 400]);
    const changed = await changedPixels(original, marked.bytes);
    assert.ok(changed > 640 * 400 * 0.02, `${format}: ${changed} pixels changed`);
    assert.ok(changed < 640 * 400 * 0.5, `${format}: the mark does not bury the picture (${changed} pixels)`);
  }
});

test('XML-special identities, GIFs and EXIF-rotated JPEGs', async () => {
  const original = await sharp({ create: { width: 300, height: 200, channels: 3, background } })
    .png()
    .toBuffer();
  const marked = await imageCopy(original, { stamp: { ...stamp, identity: '<a&b>@x.com"\'' } });
  assert.ok((await changedPixels(original, marked.bytes)) > 0);

  const gif = await sharp({ create: { width: 120, height: 80, channels: 3, background } })
    .gif()
    .toBuffer();
  const fromGif = await imageCopy(gif, { stamp });
  assert.equal(fromGif.mime, 'image/png');
  assert.equal((await sharp(fromGif.bytes).metadata()).format, 'png');

  // Stored 300×200 with orientation 6 (turn 90° clockwise): shown, and marked, as 200×300.
  const sideways = await sharp({ create: { width: 300, height: 200, channels: 3, background } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const upright = await imageCopy(sideways, { stamp });
  const metadata = await sharp(upright.bytes).metadata();
  assert.deepEqual([metadata.width, metadata.height, metadata.orientation], [200, 300, undefined]);
});

test('an image sharp cannot decode is an UnreadableImageError (422)', async () => {
  const png = await sharp({ create: { width: 300, height: 200, channels: 3, background } })
    .png()
    .toBuffer();
  for (const bytes of [Buffer.from('not an image'), png.subarray(0, 100)]) {
    await assert.rejects(imageCopy(bytes, { stamp }), (error: unknown) => {
      assert.ok(error instanceof UnreadableImageError, String(error));
      assert.equal(error.status, 422);
      return true;
    });
  }
});

test('which types can carry the mark', () => {
  for (const mime of ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']) {
    assert.ok(canWatermark(mime), mime);
  }
  for (const mime of ['image/svg+xml', 'video/mp4', 'application/zip', 'text/plain']) assert.ok(!canWatermark(mime), mime);
  assert.ok(!canWatermarkImage('application/pdf'));
});
