/**
 * The account's brand colour, which the server writes in <meta name="brand-color">: the header
 * wears it, and text on it is black or white, whichever reads better (WCAG contrast).
 */
export function applyBrandColour(colour: string | null = document.querySelector<HTMLMetaElement>('meta[name="brand-color"]')?.content ?? null): void {
  if (!colour || !/^#[0-9a-f]{6}$/i.test(colour)) return;
  const root = document.documentElement.style;
  root.setProperty('--brand', colour);
  root.setProperty('--on-brand', relativeLuminance(colour) > 0.4 ? '#111827' : '#ffffff');
}

function relativeLuminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((start) => {
    const channel = parseInt(hex.slice(start, start + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
