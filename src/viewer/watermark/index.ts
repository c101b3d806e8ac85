/** Server-side marking of what a visitor receives: PDFs (pdf-lib) and images (sharp). */
import { loadWatermarkFont } from './font.js';
import { canWatermarkImage } from './image.js';

export { UnreadableImageError, canWatermarkImage, watermarkImage } from './image.js';
export { type PreparePdfOptions, type PreparedPdf, UnreadablePdfError, type WatermarkStamp, preparePdf, watermarkText } from './pdf.js';

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
