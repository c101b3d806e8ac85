import { payloadTooLarge, unprocessable } from '../../core/errors.js';

export const MAX_LOGO_BYTES = 2 * 1024 * 1024;
const ACCEPTED_FORMATS = new Set(['png', 'jpeg', 'webp']);

/**
 * Decodes the upload and encodes a fresh PNG from its pixels: metadata and anything hidden
 * after the image data are gone, and an SVG (active content) is refused outright.
 */
export async function reencodeLogo(upload: Buffer): Promise<Buffer> {
  if (upload.length > MAX_LOGO_BYTES) throw payloadTooLarge('The logo must be at most 2 MB');
  // sharp (libvips, tens of MB) loads with the first logo rather than with every process.
  const { default: sharp } = await import('sharp');
  const format = await sharp(upload)
    .metadata()
    .then(
      (metadata) => metadata.format,
      () => undefined,
    );
  if (!format || !ACCEPTED_FORMATS.has(format)) throw unprocessable('The logo must be a PNG, JPEG or WebP image (SVG is not accepted)');
  return sharp(upload).rotate().resize({ width: 1024, height: 1024, fit: 'inside', withoutEnlargement: true }).png().toBuffer();
}
