/** Black and white: whichever reads better is the text on the account's brand colour (one always reaches 4.5:1). */
const DARK = '#000000';
const LIGHT = '#ffffff';

/** A hex colour in the long form (#rrggbb) that <input type="color"> and CSS both take; undefined for anything else. */
export function longHex(colour: string): string | undefined {
  const digits = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour)?.[1];
  if (!digits) return undefined;
  return `#${digits.length === 3 ? [...digits].map((digit) => digit + digit).join('') : digits}`.toLowerCase();
}

function relativeLuminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((start) => {
    const channel = parseInt(hex.slice(start, start + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The WCAG contrast of two hex colours, 1 to 21; undefined when either is not a hex colour. */
export function contrastRatio(a: string, b: string): number | undefined {
  const [first, second] = [longHex(a), longHex(b)];
  if (!first || !second) return undefined;
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** Black or white, whichever reads better on `background` (a hex colour). */
export function readableOn(background: string): string {
  return (contrastRatio(DARK, background) ?? 0) > (contrastRatio(LIGHT, background) ?? 0) ? DARK : LIGHT;
}

/**
 * The account's brand colour, which the server writes in <meta name="brand-color">: the header
 * wears it, and text on it is black or white, whichever has the higher contrast.
 */
export function applyBrandColour(colour: string | null = document.querySelector<HTMLMetaElement>('meta[name="brand-color"]')?.content ?? null): void {
  const brand = colour ? longHex(colour) : undefined;
  if (!brand) return;
  const root = document.documentElement.style;
  root.setProperty('--brand', brand);
  root.setProperty('--on-brand', readableOn(brand));
}
