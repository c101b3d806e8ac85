/**
 * Server-side marking of what a visitor receives: PDFs (pdf-lib) and images (sharp).
 * pdf-lib, fontkit and sharp (about 30 MiB together) load with the first file marked or cut.
 */
import { loadWatermarkFont } from './font.js';
import { canWatermarkImage } from './image.js';
import type * as PdfMarking from './pdf.js';

export { UnreadableImageError, canWatermarkImage, stampPageImage, imageCopy } from './image.js';
export { releaseBuffer } from './release-buffer.js';
export { drawStampSprite, type StampSprite } from './sprite.js';
export type { PreparePdfOptions, PreparedPdf } from './pdf.js';
export { type WatermarkStamp, watermarkText } from './stamp.js';
export { UnreadablePdfError } from './unreadable-pdf.js';

/** The copy of a PDF a visitor receives (see pdf.ts, loaded here with pdf-lib on the first call). */
export async function preparePdf(...args: Parameters<typeof PdfMarking.preparePdf>): Promise<PdfMarking.PreparedPdf> {
  return (await import('./pdf.js')).preparePdf(...args);
}

/** Whether a file of this type can be shown with the mark burned in. */
export function canWatermark(mime: string): boolean {
  return mime.toLowerCase() === 'application/pdf' || canWatermarkImage(mime);
}

/**
 * Reads and parses the watermark font ahead of the first marked view (optional: it
 * happens lazily otherwise, adding tens of ms to that one request).
 */
export async function warmUpWatermarking(): Promise<void> {
  await loadWatermarkFont();
}
