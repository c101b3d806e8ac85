/**
 * What a watermark says and where its copies go: shared by the PDF and image stampers,
 * so a page and a photo viewed through the same link carry the same mark, laid out alike.
 */

export interface WatermarkStamp {
  /** The visitor's e-mail when known, else their IP address. */
  identity: string;
  at: Date;
  /** A short id of the view session, so a leaked copy leads back to one visit. */
  viewId: string;
}

/** `ann@example.com · 2026-11-22 14:03 UTC · view 7F3K9Q` (UTC, to the minute). */
export function watermarkText(stamp: WatermarkStamp): string {
  const when = `${stamp.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  // Controls (a newline in a header-derived identity) would break the single-line layout.
  const identity = stamp.identity.replace(/\p{Cc}+/gu, ' ').trim();
  return `${identity} · ${when} · view ${stamp.viewId}`;
}

/** The angle the text reads at, counter-clockwise from the horizontal, as displayed. */
export const WATERMARK_ANGLE_DEGREES = 35;
export const WATERMARK_OPACITY = 0.2;

/**
 * Font size for a surface whose longer side is `side`: the line should span about 60 %
 * of it, within 2-3.4 % of the side so a short IP is not huge and a long e-mail not tiny.
 */
export function watermarkFontSize(side: number, widthAtSizeOne: number): number {
  const fitting = (0.6 * side) / Math.max(widthAtSizeOne, 1);
  return Math.min(Math.max(fitting, 0.02 * side), 0.034 * side);
}

export interface TileOrigin {
  /** Baseline start of one copy of the text, in a y-up frame with (0, 0) at bottom left. */
  x: number;
  y: number;
}

/**
 * Baseline origins of the text copies that tile a width × height rectangle (y up) with
 * lines rotated by `angleDegrees`: rows `4.5 × fontSize` apart, every other row shifted
 * by half a copy (a brick pattern, so no column of blank space), copies that cannot
 * touch the rectangle left out.
 */
export function tileOrigins(width: number, height: number, textWidth: number, fontSize: number, angleDegrees: number): TileOrigin[] {
  const angle = (angleDegrees * Math.PI) / 180;
  const [ux, uy] = [Math.cos(angle), Math.sin(angle)]; // along the baseline
  const [vx, vy] = [-uy, ux]; // across it
  const [cx, cy] = [width / 2, height / 2];
  const reach = Math.hypot(width, height) / 2;
  const rowPitch = 4.5 * fontSize;
  const columnPitch = textWidth + 4 * fontSize;
  const rows = Math.ceil(reach / rowPitch) + 1;
  const columns = Math.ceil(reach / columnPitch) + 1;

  const origins: TileOrigin[] = [];
  for (let row = -rows; row <= rows; row++) {
    const shift = row % 2 === 0 ? 0 : columnPitch / 2;
    for (let column = -columns; column <= columns; column++) {
      const along = column * columnPitch + shift - textWidth / 2;
      const across = row * rowPitch - 0.35 * fontSize; // centres the glyphs' body on the row
      const x = cx + along * ux + across * vx;
      const y = cy + along * uy + across * vy;
      if (copyTouches(x, y, textWidth, fontSize, [ux, uy], [vx, vy], width, height)) origins.push({ x, y });
    }
  }
  return origins;
}

/** Whether the bounding box of one rotated copy overlaps the rectangle. */
function copyTouches(
  x: number,
  y: number,
  textWidth: number,
  fontSize: number,
  [ux, uy]: [number, number],
  [vx, vy]: [number, number],
  width: number,
  height: number,
): boolean {
  const descent = -0.3 * fontSize;
  const ascent = 1.0 * fontSize;
  const xs: number[] = [];
  const ys: number[] = [];
  for (const along of [0, textWidth]) {
    for (const across of [descent, ascent]) {
      xs.push(x + along * ux + across * vx);
      ys.push(y + along * uy + across * vy);
    }
  }
  return Math.max(...xs) >= 0 && Math.min(...xs) <= width && Math.max(...ys) >= 0 && Math.min(...ys) <= height;
}
