/**
 * The mark laid into raw pixels by hand. One copy of the line is drawn as a small rotated picture
 * (the sprite) and blended into the page at each tile origin. libvips' composite converts the whole
 * page to floating point and back, about 100 ms for a 1600 px page; blending only the inked pixels
 * of the sprite's copies costs a few milliseconds, and drawing one copy instead of a page of them
 * is as cheap.
 */
import { loadWatermarkFont, toDrawableText, type WatermarkFont } from './font.js';
import { WATERMARK_ANGLE_DEGREES, WATERMARK_OPACITY, type WatermarkStamp, tileOrigins, watermarkFontSize, watermarkText } from './stamp.js';

/** Below this the mark cannot be read anyway; small images get relatively bigger text. */
const MIN_FONT_PIXELS = 10;

/** One line of the mark, laid out in font units. */
interface MarkLine {
  /** SVG paths of the glyphs, baseline at y = 0, in font units (y up). */
  paths: string;
  /** the line's length at a font size of 1 */
  widthAtSizeOne: number;
  unitsPerEm: number;
  ascent: number;
  descent: number;
}

function layOut(font: WatermarkFont, text: string): MarkLine {
  const { parsed } = font;
  const run = parsed.layout(text);
  const paths: string[] = [];
  let advance = 0;
  run.glyphs.forEach((glyph, index) => {
    const position = run.positions[index]!;
    const path = glyph.path.toSVG();
    if (path) paths.push(`<path transform="translate(${advance + position.xOffset} ${position.yOffset})" d="${path}"/>`);
    advance += position.xAdvance;
  });
  return {
    paths: paths.join(''),
    widthAtSizeOne: advance / parsed.unitsPerEm,
    unitsPerEm: parsed.unitsPerEm,
    ascent: parsed.ascent,
    descent: parsed.descent,
  };
}

/** The group style of every copy: dark glyphs with a light outline stay visible on light and dark pictures alike. */
function inkStyle(line: MarkLine): string {
  return `fill="#000" fill-opacity="${WATERMARK_OPACITY}" stroke="#fff" stroke-opacity="${WATERMARK_OPACITY}" stroke-width="${fixed(0.04 * line.unitsPerEm)}"`;
}

/**
 * A visit's mark for pages of one size: the inked pixels of one copy (offsets from the sprite's
 * top left, coverage and grey level) and where each copy's top left falls on the page.
 */
export interface StampSprite {
  pageWidth: number;
  pageHeight: number;
  xs: Int16Array;
  ys: Int16Array;
  alphas: Uint8Array;
  greys: Uint8Array;
  /** top-left corners of the copies on the page, x and y interleaved */
  tiles: Int32Array;
  bytes: number;
}

export async function drawStampSprite(stamp: WatermarkStamp, pageWidth: number, pageHeight: number): Promise<StampSprite> {
  const font = await loadWatermarkFont();
  const line = layOut(font, toDrawableText(font.parsed, watermarkText(stamp)));
  const fontSize = Math.max(watermarkFontSize(Math.max(pageWidth, pageHeight), line.widthAtSizeOne), MIN_FONT_PIXELS);
  const scale = fontSize / line.unitsPerEm;
  const textWidth = line.widthAtSizeOne * fontSize;

  // The copy's box around its baseline origin (y down), turned by the angle, with room for the outline.
  const angle = (WATERMARK_ANGLE_DEGREES * Math.PI) / 180;
  const pad = Math.ceil(0.05 * fontSize) + 2;
  const corners = [0, textWidth].flatMap((x) =>
    [-line.ascent * scale, -line.descent * scale].map(
      (y) => [x * Math.cos(angle) + y * Math.sin(angle), -x * Math.sin(angle) + y * Math.cos(angle)] as const,
    ),
  );
  const left = Math.floor(Math.min(...corners.map(([x]) => x))) - pad;
  const top = Math.floor(Math.min(...corners.map(([, y]) => y))) - pad;
  const width = Math.ceil(Math.max(...corners.map(([x]) => x))) + pad - left;
  const height = Math.ceil(Math.max(...corners.map(([, y]) => y))) + pad - top;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g transform="translate(${-left} ${-top}) rotate(${-WATERMARK_ANGLE_DEGREES}) scale(${scale} ${-scale})" ${inkStyle(line)}>${line.paths}</g></svg>`;

  const { default: sharp } = await import('sharp');
  const rgba = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer();
  const inked: number[] = [];
  for (let i = 0; i < width * height; i++) if (rgba[i * 4 + 3]! > 0) inked.push(i);
  const xs = new Int16Array(inked.length);
  const ys = new Int16Array(inked.length);
  const alphas = new Uint8Array(inked.length);
  const greys = new Uint8Array(inked.length);
  inked.forEach((pixel, n) => {
    xs[n] = pixel % width;
    ys[n] = Math.floor(pixel / width);
    alphas[n] = rgba[pixel * 4 + 3]!;
    greys[n] = rgba[pixel * 4]!;
  });

  // Tile origins come y-up with (0, 0) at bottom left; pages are y-down.
  const origins = tileOrigins(pageWidth, pageHeight, textWidth, fontSize, WATERMARK_ANGLE_DEGREES);
  const tiles = new Int32Array(origins.length * 2);
  origins.forEach(({ x, y }, n) => {
    tiles[n * 2] = Math.round(x) + left;
    tiles[n * 2 + 1] = Math.round(pageHeight - y) + top;
  });
  return { pageWidth, pageHeight, xs, ys, alphas, greys, tiles, bytes: inked.length * 6 + tiles.byteLength };
}

/**
 * Blends the sprite's copies into `pixels` (`channels` 3 or 4, `width` × `height`, rows packed) in
 * place: colour over colour by coverage, and where there is an alpha channel, coverage over it too.
 */
export function blendSprite(pixels: Uint8Array, width: number, height: number, channels: number, sprite: StampSprite): void {
  const { xs, ys, alphas, greys, tiles } = sprite;
  for (let t = 0; t < tiles.length; t += 2) {
    const left = tiles[t]!;
    const top = tiles[t + 1]!;
    for (let n = 0; n < xs.length; n++) {
      const x = left + xs[n]!;
      const y = top + ys[n]!;
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      const alpha = alphas[n]!;
      const ink = greys[n]! * alpha + 127;
      const keep = 255 - alpha;
      const at = (y * width + x) * channels;
      pixels[at] = (pixels[at]! * keep + ink) / 255;
      pixels[at + 1] = (pixels[at + 1]! * keep + ink) / 255;
      pixels[at + 2] = (pixels[at + 2]! * keep + ink) / 255;
      if (channels === 4) pixels[at + 3] = alpha + (pixels[at + 3]! * keep + 127) / 255;
    }
  }
}

const fixed = (value: number) => value.toFixed(2);
