/**
 * The copy of an image a visitor receives, and of a rendered page: the same tiled diagonal mark
 * as PDFs, blended into the pixels (sprite.ts). The text is drawn as glyph outlines from DejaVu
 * Sans, so the SVG holds no text node (nothing to escape, no dependence on the server's fonts).
 */
import { AppError, unprocessable } from '../../../core/errors.js';
import { releaseBuffer } from './release-buffer.js';
import { blendSprite, drawStampSprite, type StampSprite } from './sprite.js';
import type { WatermarkStamp } from './stamp.js';

const MARKABLE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);

/** Formats kept as they came; anything else (gif, avif, tiff) leaves as PNG. */
const KEPT_FORMATS = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/**
 * The largest picture a visitor's copy is made from (an 8000 × 5000 photo). Each copy decodes the
 * whole picture: a 16 000 px square takes seconds and a gigabyte, on every view of it.
 */
export const MAX_COPIED_IMAGE_PIXELS = 40_000_000;

/** An image sharp cannot decode: it cannot be shown marked. */
export class UnreadableImageError extends AppError {
  override name = 'UnreadableImageError';

  constructor(options?: { cause?: unknown }) {
    super(422, 'This image could not be read, so it cannot be watermarked');
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

export function canWatermarkImage(mime: string): boolean {
  return MARKABLE_IMAGES.has(mime.toLowerCase());
}

/**
 * The copy of an image a visitor is shown: with `stamp`, the mark burned in; with `maxSide`, no larger
 * than that on its longer side (what a sold picture is shown at). Its EXIF orientation applied (the copy
 * carries no EXIF, so it must already stand the right way); only the first frame of an animation.
 */
export async function imageCopy(original: Buffer, options: { stamp?: WatermarkStamp; maxSide?: number }): Promise<{ bytes: Buffer; mime: string }> {
  const { default: sharp } = await import('sharp');
  const image = sharp(original, { autoOrient: true });
  const metadata = await image.metadata().catch((error: unknown) => {
    throw new UnreadableImageError({ cause: error });
  });
  if ((metadata.width ?? 0) * (metadata.height ?? 0) > MAX_COPIED_IMAGE_PIXELS) {
    throw unprocessable(
      `This image is too large to be shown here (over ${MAX_COPIED_IMAGE_PIXELS / 1_000_000} megapixels); ask the sender for a smaller one`,
    );
  }
  if (options.maxSide !== undefined) image.resize({ width: options.maxSide, height: options.maxSide, fit: 'inside', withoutEnlargement: true });
  // A header that parses over pixels that do not (a truncated upload) fails only here.
  const { data, info } = await image
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true })
    .catch((error: unknown) => {
      throw new UnreadableImageError({ cause: error });
    });
  if (options.stamp) blendSprite(data, info.width, info.height, info.channels, await drawStampSprite(options.stamp, info.width, info.height));

  const format = metadata.format in KEPT_FORMATS ? (metadata.format as keyof typeof KEPT_FORMATS) : 'png';
  const copy = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  if (format === 'jpeg') copy.jpeg({ quality: 90 });
  else if (format === 'webp') copy.webp({ quality: 90 });
  else copy.png();
  try {
    return { bytes: await copy.toBuffer(), mime: KEPT_FORMATS[format] };
  } finally {
    releaseBuffer(data);
  }
}

/**
 * A rendered page with the visit's mark (`sprite`, drawn for the page's size) burned into its
 * pixels. The copy is a JPEG: it is made per visit, and libjpeg-turbo encodes a 1600 px page in
 * about a tenth of the time WebP's fastest effort takes; without optimised Huffman tables (a
 * second pass over the page for 1 % fewer bytes) in a third of the time again.
 */
export async function stampPageImage(page: Buffer, sprite: StampSprite): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(page).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  blendSprite(data, info.width, info.height, info.channels, sprite);
  try {
    return await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .jpeg({ quality: 85, optimiseCoding: false })
      .toBuffer();
  } finally {
    releaseBuffer(data);
  }
}
