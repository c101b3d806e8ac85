/**
 * The copy of an image a visitor receives: the same tiled diagonal mark as PDFs,
 * composited with sharp. The text is drawn as glyph outlines from DejaVu Sans, so the
 * SVG holds no text node (nothing to escape, no dependence on the server's fonts).
 */
import { AppError } from '../../../core/errors.js';
import { loadWatermarkFont, toDrawableText, type WatermarkFont } from './font.js';
import { WATERMARK_ANGLE_DEGREES, WATERMARK_OPACITY, type WatermarkStamp, tileOrigins, watermarkFontSize, watermarkText } from './stamp.js';

const MARKABLE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);

/** Formats kept as they came; anything else (gif, avif, tiff) leaves as PNG. */
const KEPT_FORMATS = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/** Below this the mark cannot be read anyway; small images get relatively bigger text. */
const MIN_FONT_PIXELS = 10;

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
 * Burns the mark into an image, after applying its EXIF orientation (the copy carries no
 * EXIF, so it must already stand the right way). Only the first frame of an animation.
 */
export async function watermarkImage(original: Buffer, stamp: WatermarkStamp): Promise<{ bytes: Buffer; mime: string }> {
  const { default: sharp } = await import('sharp');
  const image = sharp(original, { autoOrient: true });
  const metadata = await image.metadata().catch((error: unknown) => {
    throw new UnreadableImageError({ cause: error });
  });
  const { width, height } = metadata.autoOrient;
  const overlay = markSvg(await loadWatermarkFont(), watermarkText(stamp), width, height);
  image.composite([{ input: Buffer.from(overlay), top: 0, left: 0 }]);

  const format = metadata.format in KEPT_FORMATS ? (metadata.format as keyof typeof KEPT_FORMATS) : 'png';
  if (format === 'jpeg') image.jpeg({ quality: 90 });
  else if (format === 'webp') image.webp({ quality: 90 });
  else image.png();
  // A header that parses over pixels that do not (a truncated upload) fails only here.
  const bytes = await image.toBuffer().catch((error: unknown) => {
    throw new UnreadableImageError({ cause: error });
  });
  return { bytes, mime: KEPT_FORMATS[format] };
}

/** A visit's mark drawn once for one page size, laid on each page of that size it is shown. */
export interface StampOverlay {
  png: Buffer;
  width: number;
  height: number;
}

/**
 * The mark for `stamp` at `width` × `height`, as a PNG (mostly transparent, so small): drawing
 * the glyph outlines costs more than laying the finished picture on a page.
 */
export async function drawStampOverlay(stamp: WatermarkStamp, width: number, height: number): Promise<StampOverlay> {
  const { default: sharp } = await import('sharp');
  const svg = markSvg(await loadWatermarkFont(), watermarkText(stamp), width, height);
  return { png: await sharp(Buffer.from(svg)).png({ compressionLevel: 1 }).toBuffer(), width, height };
}

/** A rendered page (WebP) with `overlay` burned into its pixels, as WebP (the fastest effort: it is made per visit). */
export async function stampPageImage(page: Buffer, overlay: StampOverlay): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  return sharp(page)
    .composite([{ input: overlay.png, top: 0, left: 0 }])
    .webp({ quality: 85, effort: 0 })
    .toBuffer();
}

/** An SVG the size of the image: one text line defined once, placed on every tile. */
function markSvg(font: WatermarkFont, text: string, width: number, height: number): string {
  const { parsed } = font;
  const run = parsed.layout(toDrawableText(parsed, text));
  const glyphs: string[] = [];
  let advance = 0;
  run.glyphs.forEach((glyph, index) => {
    const position = run.positions[index]!;
    const path = glyph.path.toSVG();
    if (path) glyphs.push(`<path transform="translate(${advance + position.xOffset} ${position.yOffset})" d="${path}"/>`);
    advance += position.xAdvance;
  });

  const widthAtSizeOne = advance / parsed.unitsPerEm;
  const fontSize = Math.max(watermarkFontSize(Math.max(width, height), widthAtSizeOne), MIN_FONT_PIXELS);
  const unitsToPixels = fontSize / parsed.unitsPerEm;
  // Origins come y-up; SVG is y-down, so y flips and the rotation turns the other way.
  const tiles = tileOrigins(width, height, widthAtSizeOne * fontSize, fontSize, WATERMARK_ANGLE_DEGREES).map(
    ({ x, y }) => `<use href="#line" transform="translate(${fixed(x)} ${fixed(height - y)}) rotate(${-WATERMARK_ANGLE_DEGREES})"/>`,
  );
  // Dark glyphs with a light outline stay visible on light and dark pictures alike.
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<defs><g id="line" transform="scale(${unitsToPixels} ${-unitsToPixels})">${glyphs.join('')}</g></defs>` +
    `<g fill="#000" fill-opacity="${WATERMARK_OPACITY}" stroke="#fff" stroke-opacity="${WATERMARK_OPACITY}" ` +
    `stroke-width="${fixed(0.04 * parsed.unitsPerEm)}">${tiles.join('')}</g></svg>`
  );
}

const fixed = (value: number) => value.toFixed(2);
