import { BIDI_CONTROLS } from '../../../core/text.js';
import { DEFAULT_BRAND, type Brand } from '../../branding/brand.js';

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
// The lengths branding accepts (`0`, `8px`, `0.5rem`, `50%`), nothing that could close the style attribute.
const CSS_LENGTH = /^(?:0|\d{1,3}(?:\.\d{1,3})?(?:px|rem|em|%))$/;
// C0/C1 controls, DEL and the Unicode line/paragraph separators: a one-line value keeps none of them.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
const LINE_BREAK = /\r\n|\r|\n|\u2028|\u2029/;

declare const checked: unique symbol;
/** A brand whose values are safe in a style attribute or an img src; only `safeBrand` makes one. */
export type SafeBrand = Readonly<Brand> & { readonly [checked]: true };

/** Hex colours, a CSS length, a bounded logo size and an http(s) logo URL; a default for anything else. */
export function safeBrand(brand: Brand): SafeBrand {
  const color = (value: string, fallback: string) => (HEX_COLOR.test(value) ? value : fallback);
  const logoSize = Number.isInteger(brand.logoSize) ? Math.min(512, Math.max(16, brand.logoSize)) : DEFAULT_BRAND.logoSize;
  const checkedBrand: Brand = {
    companyName: brand.companyName ? oneLine(brand.companyName) || null : null,
    logoUrl: brand.logoUrl ? safeHttpUrl(brand.logoUrl) : null,
    logoSize,
    primaryColor: color(brand.primaryColor, DEFAULT_BRAND.primaryColor),
    accentColor: color(brand.accentColor, DEFAULT_BRAND.accentColor),
    btnTextColor: color(brand.btnTextColor, DEFAULT_BRAND.btnTextColor),
    textColor: color(brand.textColor, DEFAULT_BRAND.textColor),
    bgColor: color(brand.bgColor, DEFAULT_BRAND.bgColor),
    cardBgColor: color(brand.cardBgColor, DEFAULT_BRAND.cardBgColor),
    cardBorderColor: color(brand.cardBorderColor, DEFAULT_BRAND.cardBorderColor),
    btnRadius: CSS_LENGTH.test(brand.btnRadius) ? brand.btnRadius : DEFAULT_BRAND.btnRadius,
  };
  return checkedBrand as SafeBrand;
}

/** An absolute http(s) URL, unchanged, or null: no `javascript:`, `data:`, relative or whitespace-laden value. */
export function safeHttpUrl(value: string): string | null {
  // The URL parser silently drops tabs and newlines, so they are refused before parsing.
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
}

/**
 * A value meant for one line (a name, an address): control characters become single spaces,
 * reordering ones go (a name stored before names were cleaned); no-break spaces stay, French
 * typography needs them.
 */
export function oneLine(value: string): string {
  return value.replace(BIDI_CONTROLS, '').replace(CONTROL_CHARS, ' ').replace(/ {2,}/g, ' ').trim();
}

/** Plain-text lines of a multi-line note, with controls other than the line breaks removed. */
export function textLines(value: string): string[] {
  const lines = value.split(LINE_BREAK).map((line) => line.replace(CONTROL_CHARS, ' ').trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Shortens a value to `max` characters (code points, so no surrogate pair is split), marking the cut with "…". */
export function truncate(value: string, max: number): string {
  const chars = Array.from(value);
  return chars.length <= max
    ? value
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/** A header-safe subject: one line, bounded length (a header line cannot carry a second header). */
export function safeSubject(value: string): string {
  return truncate(oneLine(value), 250);
}
