/**
 * Pages of a PDF as pixels and text, with PDFium compiled to WebAssembly (`@hyzyla/pdfium`,
 * MIT; PDFium itself BSD-3/Apache-2). Chosen over poppler's pdftoppm and pdf.js on
 * @napi-rs/canvas by measuring on the fixtures (README, "Documents"): the fastest of the
 * three, nothing to install beside npm, and a licence that fits ours.
 */
import type { PDFiumDocument, PDFiumLibrary } from '@hyzyla/pdfium';

/** Why a PDF cannot be opened; shown to the owner as the document's error. */
export class PdfOpenError extends Error {
  override name = 'PdfOpenError';

  constructor(readonly reason: 'password' | 'unreadable') {
    super(reason === 'password' ? 'This PDF is protected by a password' : 'This PDF could not be read (damaged or not a PDF)');
  }
}

/** One rendered page: opaque RGBA pixels, `width` × `height`. */
export interface RenderedPage {
  rgba: Buffer;
  width: number;
  height: number;
}

export interface OpenedPdf {
  pageCount: number;
  /** Page `number` (1-based) drawn `width` pixels wide, its height in proportion. */
  renderPage(number: number, width: number): Promise<RenderedPage>;
  /** The page's text, as PDFium extracts it (empty for a scanned page). */
  pageText(number: number): string;
  close(): void;
}

let library: Promise<PDFiumLibrary> | undefined;

/** One PDFium instance per process, started with the first document (about 5 MB of WebAssembly). */
function pdfium(): Promise<PDFiumLibrary> {
  library ??= import('@hyzyla/pdfium').then(({ PDFiumLibrary }) => PDFiumLibrary.init());
  return library;
}

/** The longest side a page is drawn at, whatever its shape: a banner-shaped page cannot ask for gigapixels. */
const MAX_SIDE = 8000;

export async function openPdf(bytes: Uint8Array): Promise<OpenedPdf> {
  const lib = await pdfium();
  let document: PDFiumDocument;
  try {
    document = await lib.loadDocument(bytes);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    throw new PdfOpenError(/password|security/i.test(message) ? 'password' : 'unreadable');
  }
  const pageCount = document.getPageCount();
  const pageAt = (number: number) => {
    if (!Number.isInteger(number) || number < 1 || number > pageCount) throw new RangeError(`no page ${number} of ${pageCount}`);
    return document.getPage(number - 1);
  };

  return {
    pageCount,
    async renderPage(number, width) {
      const page = pageAt(number);
      const { originalWidth, originalHeight } = page.getOriginalSize();
      const height = Math.max(1, Math.min(MAX_SIDE, Math.round((originalHeight * width) / Math.max(originalWidth, 1))));
      // The library draws on an opaque white fill with PDFium's reverse byte order: RGBA, as image libraries read it.
      const image = await page.render({ width, height, render: 'bitmap' });
      const rgba = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
      return { rgba, width: image.width, height: image.height };
    },
    pageText: (number) => pageAt(number).getText(),
    close: () => document.destroy(),
  };
}
