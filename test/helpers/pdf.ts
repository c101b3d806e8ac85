import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

/** A PDF of `pages` pages, each saying "PAGE n". */
export async function makePdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) doc.addPage([595, 842]).drawText(`PAGE ${n}`, { x: 60, y: 760, size: 32, font });
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
