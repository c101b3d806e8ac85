/**
 * The one font every watermark is drawn with: DejaVu Sans, read and parsed once per
 * process. The PDF side embeds it (subset); the image side turns glyphs into SVG paths,
 * so neither depends on the fonts installed on the server.
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import type fontkit from '@pdf-lib/fontkit';
import type { PDFDocument } from 'pdf-lib';

type ParsedFont = ReturnType<typeof fontkit.create>;
type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];

export interface WatermarkFont {
  /** The TTF file, as pdf-lib's embedFont wants it. */
  bytes: Uint8Array;
  parsed: ParsedFont;
  /**
   * Handed to `registerFontkit`: answers pdf-lib's per-document `create` with the font
   * parsed once here, which saves ~30 ms a document (fontkit re-parses 740 KB otherwise).
   * The per-document subset is still created fresh by pdf-lib.
   */
  fontkit: Fontkit;
}

const FONT_FILE = 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf';

let loading: Promise<WatermarkFont> | undefined;

export function loadWatermarkFont(): Promise<WatermarkFont> {
  loading ??= (async () => {
    const { default: fontkit } = await import('@pdf-lib/fontkit');
    const bytes = new Uint8Array(await fs.readFile(createRequire(import.meta.url).resolve(FONT_FILE)));
    const parsed = fontkit.create(bytes);
    // fontkit parses the shaping tables on the first layout (~20 ms): pay it here, once.
    parsed.layout('warm-up · 0123 @example.com');
    return {
      bytes,
      parsed,
      fontkit: {
        create: (data, postscriptName) => (data === bytes ? parsed : fontkit.create(data, postscriptName)),
      },
    };
  })();
  // A failed read must not poison every later request.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/**
 * Replaces what the font cannot draw (CJK, emoji, controls) with "?" so the mark never
 * shows tofu boxes; the rest of the identity (usually the domain) stays readable.
 */
export function toDrawableText(font: ParsedFont, text: string): string {
  let drawable = '';
  for (const char of text.normalize('NFC')) {
    const codePoint = char.codePointAt(0)!;
    drawable += codePoint >= 0x20 && font.hasGlyphForCodePoint(codePoint) ? char : '?';
  }
  return drawable;
}
