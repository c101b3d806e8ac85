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
  xs: Int32Array;
  ys: Int32Array;
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

  const { inked, left, top } = await turnedLine(line, scale, textWidth, fontSize);

  // Tile origins come y-up with (0, 0) at bottom left; pages are y-down.
  const origins = tileOrigins(pageWidth, pageHeight, textWidth, fontSize, WATERMARK_ANGLE_DEGREES);
  const tiles = new Int32Array(origins.length * 2);
  origins.forEach(({ x, y }, n) => {
    tiles[n * 2] = Math.round(x) + left;
    tiles[n * 2 + 1] = Math.round(pageHeight - y) + top;
  });
  return { pageWidth, pageHeight, ...inked, tiles, bytes: inked.xs.length * 10 + tiles.byteLength };
}

type InkedPixels = Pick<StampSprite, 'xs' | 'ys' | 'alphas' | 'greys'>;

/**
 * One copy of the line turned by the angle: its inked pixels, and where its box's top left lies
 * from the baseline origin (y down). librsvg draws the line level, in a box its own size; the
 * turn is sampled here (bilinear), since librsvg drawing it turned fills and converts a box
 * several times larger, which cost 25 ms a copy where this costs a few.
 */
async function turnedLine(
  line: MarkLine,
  scale: number,
  textWidth: number,
  fontSize: number,
): Promise<{ inked: InkedPixels; left: number; top: number }> {
  const pad = Math.ceil(0.05 * fontSize) + 2;
  const ascent = line.ascent * scale;
  const levelWidth = Math.ceil(textWidth) + 2 * pad;
  const levelHeight = Math.ceil(ascent - line.descent * scale) + 2 * pad;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${levelWidth}" height="${levelHeight}">` +
    `<g transform="translate(${pad} ${fixed(pad + ascent)}) scale(${scale} ${-scale})" ${inkStyle(line)}>${line.paths}</g></svg>`;
  const { default: sharp } = await import('sharp');
  const level = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer();

  // The level box's corners, relative to the baseline origin, turned (y down, so the turn is clockwise in numbers).
  const [cos, sin] = [Math.cos((WATERMARK_ANGLE_DEGREES * Math.PI) / 180), Math.sin((WATERMARK_ANGLE_DEGREES * Math.PI) / 180)];
  const originX = pad;
  const originY = pad + ascent;
  const corners = [-originX, levelWidth - originX].flatMap((x) =>
    [-originY, levelHeight - originY].map((y) => [x * cos + y * sin, -x * sin + y * cos] as const),
  );
  const left = Math.floor(Math.min(...corners.map(([x]) => x)));
  const top = Math.floor(Math.min(...corners.map(([, y]) => y)));
  const width = Math.ceil(Math.max(...corners.map(([x]) => x))) - left + 1;
  const height = Math.ceil(Math.max(...corners.map(([, y]) => y))) - top + 1;

  const xs: number[] = [];
  const ys: number[] = [];
  const alphas: number[] = [];
  const greys: number[] = [];
  const weights = new Float64Array(4);
  for (let row = 0; row < height; row++) {
    const y = row + top + 0.5;
    // The columns whose centres fall inside the level box once turned back (cos and sin are
    // positive at this angle): a band across the row, a tenth of the box.
    const fromX = Math.max((y * sin - 0.5 - originX) / cos, (-0.5 - originY - y * cos) / sin);
    const toX = Math.min((y * sin + levelWidth + 0.5 - originX) / cos, (levelHeight + 0.5 - originY - y * cos) / sin);
    for (let column = Math.max(0, Math.ceil(fromX - left - 0.5)); column <= Math.min(width - 1, Math.floor(toX - left - 0.5)); column++) {
      // The turned pixel's centre, back in the level picture.
      const x = column + left + 0.5;
      const levelX = x * cos - y * sin + originX - 0.5;
      const levelY = x * sin + y * cos + originY - 0.5;
      if (levelX <= -1 || levelY <= -1 || levelX >= levelWidth || levelY >= levelHeight) continue;
      const x0 = Math.floor(levelX);
      const y0 = Math.floor(levelY);
      const fx = levelX - x0;
      const fy = levelY - y0;
      weights[0] = (1 - fx) * (1 - fy);
      weights[1] = fx * (1 - fy);
      weights[2] = (1 - fx) * fy;
      weights[3] = fx * fy;
      let alpha = 0;
      let ink = 0;
      for (let corner = 0; corner < 4; corner++) {
        const sx = x0 + (corner & 1);
        const sy = y0 + (corner >> 1);
        if (sx < 0 || sy < 0 || sx >= levelWidth || sy >= levelHeight) continue;
        const at = (sy * levelWidth + sx) * 4;
        const covered = level[at + 3]! * weights[corner]!;
        alpha += covered;
        ink += level[at]! * covered;
      }
      if (alpha < 0.5) continue;
      xs.push(column);
      ys.push(row);
      alphas.push(Math.round(alpha));
      greys.push(Math.round(ink / alpha));
    }
  }
  return { inked: { xs: Int32Array.from(xs), ys: Int32Array.from(ys), alphas: Uint8Array.from(alphas), greys: Uint8Array.from(greys) }, left, top };
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
