import { payloadTooLarge, unprocessable } from '../../core/errors.js';

export const MAX_IMAGE_UPLOAD_BYTES = 2 * 1024 * 1024;
const ACCEPTED_FORMATS = new Set(['png', 'jpeg', 'webp']);

/**
 * Decodes an uploaded picture (a logo, a link preview) and encodes a fresh PNG from its pixels,
 * at most `maxSide` pixels a side: metadata and anything hidden after the image data are gone,
 * and an SVG (active content) is refused outright. `what` names it in the errors.
 */
export async function reencodeImage(upload: Buffer, what: string, maxSide: number): Promise<Buffer> {
  if (upload.length > MAX_IMAGE_UPLOAD_BYTES) throw payloadTooLarge(`The ${what} must be at most 2 MB`);
  // sharp (libvips, tens of MB) loads with the first image rather than with every process.
  const { default: sharp } = await import('sharp');
  const format = await sharp(upload)
    .metadata()
    .then(
      (metadata) => metadata.format,
      () => undefined,
    );
  if (!format || !ACCEPTED_FORMATS.has(format)) throw unprocessable(`The ${what} must be a PNG, JPEG or WebP image (SVG is not accepted)`);
  return sharp(upload).rotate().resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true }).png().toBuffer();
}
