/**
 * Colours the brand's choices are worn in, so that they stay readable whatever was chosen: WCAG 2
 * contrast, and the brand colour darkened or lightened just enough where it is text or a focus ring.
 */

/** What reads on a colour the account chose: one of the two always reaches 4.5:1 on any colour. */
const DARK = '#000000';
const LIGHT = '#ffffff';
/** WCAG AA for normal text; focus rings and controls need 3, which it covers. */
const READABLE = 4.5;

type Rgb = [number, number, number];

function rgbOf(hex: string): Rgb | undefined {
  const digits = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex)?.[1];
  if (!digits) return undefined;
  const long = digits.length === 3 ? [...digits].map((digit) => digit + digit).join('') : digits;
  return [0, 2, 4].map((start) => parseInt(long.slice(start, start + 2), 16)) as Rgb;
}

const hexOf = (rgb: Rgb) => `#${rgb.map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;

function luminance([r, g, b]: Rgb): number {
  const linear = (channel: number) => {
    const value = channel / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

function ratio(a: Rgb, b: Rgb): number {
  const [lighter, darker] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** The WCAG contrast of two hex colours (#rgb or #rrggbb), 1 to 21; 1 when either is not one. */
function contrastRatio(a: string, b: string): number {
  const [first, second] = [rgbOf(a), rgbOf(b)];
  return first && second ? ratio(first, second) : 1;
}

/** Black or white, whichever reads better on `background`: text on a button of the brand colour. */
export function textOn(background: string): string {
  return contrastRatio(DARK, background) > contrastRatio(LIGHT, background) ? DARK : LIGHT;
}

/**
 * `colour` as text, links and focus rings wear it on `backgrounds`: itself where it reads
 * (READABLE) on each, else the least shade of it towards black or white that does, else `fallback`
 * (the page's text colour).
 */
export function accentOn(colour: string, backgrounds: readonly string[], fallback: string): string {
  const rgb = rgbOf(colour);
  const grounds = backgrounds.map(rgbOf).filter((ground): ground is Rgb => ground !== undefined);
  if (!rgb) return fallback;
  const reads = (candidate: Rgb) => grounds.every((ground) => ratio(candidate, ground) >= READABLE);
  if (reads(rgb)) return colour;
  for (let step = 1; step <= 20; step++) {
    for (const target of [0, 255]) {
      const shade = rgb.map((channel) => Math.round(channel + ((target - channel) * step) / 20)) as Rgb;
      if (reads(shade)) return hexOf(shade);
    }
  }
  return fallback;
}
