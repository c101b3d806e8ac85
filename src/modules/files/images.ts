import { createConcurrencyLimit } from '../../core/concurrency.js';
import { payloadTooLarge, unprocessable } from '../../core/errors.js';

export const MAX_IMAGE_UPLOAD_BYTES = 2 * 1024 * 1024;
/**
 * The most pixels an uploaded logo or preview is decoded at (a 6000 × 4000 photo). Two megabytes
 * of compressed zeros can declare a 16 000 px square: decoding it would take gigabytes.
 */
export const MAX_UPLOADED_IMAGE_PIXELS = 25_000_000;
const ACCEPTED_FORMATS = new Set(['png', 'jpeg', 'webp']);
/** Decodes at once: each may hold about a hundred megabytes. */
const reencoding = createConcurrencyLimit(2);

/**
 * Decodes an uploaded picture (a logo, a link preview) and encodes a fresh PNG from its pixels,
 * at most `maxSide` pixels a side: metadata and anything hidden after the image data are gone,
 * and an SVG (active content) is refused outright. `what` names it in the errors.
 */
export async function reencodeImage(upload: Buffer, what: string, maxSide: number): Promise<Buffer> {
  if (upload.length > MAX_IMAGE_UPLOAD_BYTES) throw payloadTooLarge(`The ${what} must be at most 2 MB`);
  // sharp throws at once, not in its promise, when given no bytes.
  if (upload.length === 0) throw unprocessable(`The ${what} is an empty file: choose a PNG, JPEG or WebP image`);
  // sharp (libvips, tens of MB) loads with the first image rather than with every process.
  const { default: sharp } = await import('sharp');
  const metadata = await sharp(upload)
    .metadata()
    .catch(() => undefined);
  if (!metadata?.format || !ACCEPTED_FORMATS.has(metadata.format)) {
    throw unprocessable(`The ${what} must be a PNG, JPEG or WebP image (SVG is not accepted)`);
  }
  const { width = 0, height = 0 } = metadata;
  if (width * height > MAX_UPLOADED_IMAGE_PIXELS) {
    throw unprocessable(
      `The ${what} is ${width} × ${height} pixels; it may have at most ${MAX_UPLOADED_IMAGE_PIXELS / 1_000_000} megapixels: make it smaller and upload it again`,
    );
  }
  return reencoding(() =>
    sharp(upload, { limitInputPixels: MAX_UPLOADED_IMAGE_PIXELS })
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer(),
  );
}
