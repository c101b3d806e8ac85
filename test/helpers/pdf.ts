import { PDFDocument, PDFName, rgb, StandardFonts } from 'pdf-lib';

/**
 * A PDF of `pages` pages, each saying "PAGE n": A4 unless `height` (points) says otherwise. A
 * page drawn 1600 px wide costs in proportion to its height: a short strip is a seventh of A4.
 */
export async function makePdf(pages: number, options: { height?: number } = {}): Promise<Buffer> {
  const height = options.height ?? 842;
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) doc.addPage([595, height]).drawText(`PAGE ${n}`, { x: 60, y: height - 82, size: 32, font });
  return Buffer.from(await doc.save());
}

/**
 * A small PDF whose page `slowPage` is slow to draw: 60 000 translucent strokes (about 400 KB; PDFium
 * takes seconds over such a page, milliseconds over the others, which say "PAGE n").
 */
export async function makeSlowPdf(pages: number, slowPage: number): Promise<Buffer> {
  const doc = await PDFDocument.load(await makePdf(pages));
  const page = doc.getPage(slowPage - 1);
  const strokes = ['/Translucent gs 0.2 w'];
  for (let i = 0; i < 60_000; i++) strokes.push(`${(i * 7) % 595} ${(i * 13) % 842} m ${(i * 31) % 595} ${(i * 17) % 842} l S`);
  const translucent = doc.context.register(doc.context.obj({ Type: 'ExtGState', CA: 0.5, ca: 0.5 }));
  page.node.set(PDFName.of('Resources'), doc.context.obj({ ExtGState: { Translucent: translucent } }));
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(strokes.join('\n'))));
  return Buffer.from(await doc.save());
}

/** Red, green and blue, top to bottom: band i's strongest channel is channel i. */
export const BANDS = [rgb(1, 0, 0), rgb(0, 0.6, 0), rgb(0, 0, 1)];

/** A one-page PDF of full-width bands in the colours of `BANDS`. */
export async function makeBandsPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const height = 842 / BANDS.length;
  BANDS.forEach((color, index) => page.drawRectangle({ x: 0, y: 842 - (index + 1) * height, width: 595, height, color }));
  return Buffer.from(await doc.save());
}

/** The text of each page, read back with pdf.js. */
export async function pdfPageTexts(bytes: Uint8Array): Promise<string[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await pdfjs.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false, verbosity: 0 }).promise;
  const texts: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    texts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  await pdf.destroy();
  return texts;
}
