/**
 * How a document is shown to a visitor: its presentation, the watermark (a room's included), the
 * sold-only refusal and the purchase offer. Pure rules over the link row, read by the visits,
 * pages and documents services.
 */
import { forbidden } from '../../core/errors.js';
import type { LinkRow } from '../../db/types.js';
import { viewerPathOf } from '../links/links.service.js';
import { formatPrice } from '../payments/price.js';
import { isCheckoutSessionId, salePriceOf } from '../payments/sale.js';
import type { VisitorSession } from '../visits/visitor.js';
import { isPaged } from './renditions.js';
import { canWatermarkImage, type WatermarkStamp } from './watermark/index.js';

export type Presentation = 'pages' | 'image' | 'video' | 'audio' | 'download' | 'unmarkable';

// Raster formats only: an SVG is a document that can carry script.
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/**
 * How a file is shown; with a watermark, only what can carry the mark is shown at all. PDFs and
 * Office files are shown as page images drawn on the server (the mark burned into their pixels).
 */
export function presentationOf(file: Pick<LinkRow, 'mime' | 'name' | 'kind' | 'require_payment'>, watermark: boolean): Presentation {
  const { mime } = file;
  if (isPaged(file)) return 'pages';
  if (INLINE_IMAGES.has(mime)) return !watermark || canWatermarkImage(mime) ? 'image' : 'unmarkable';
  if (watermark) return 'unmarkable';
  // Playing a recording streams all of it: a sold one is what the link sells, only bought.
  if (isSold(file)) return 'download';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  return 'download';
}

/** Whether the link sells its original: the viewer then shows a sold picture only smaller (SOLD_IMAGE_SIDE), and plays no sold recording. */
export const isSold = (file: Pick<LinkRow, 'require_payment'>) => file.require_payment === 1;

/** The longer side, in pixels, of the copy of a sold picture the viewer shows: the original is what is bought. */
export const SOLD_IMAGE_SIDE = 1024;

/**
 * Whether a visitor may be given the file itself (when the owner allows downloads): what can
 * carry the mark when it must (a stamped PDF or image), and an Office file only as it is, with
 * no mark and no preview cut to apply.
 */
export function isDownloadable(file: Pick<LinkRow, 'mime' | 'name' | 'kind' | 'preview_pages' | 'require_payment'>, watermark: boolean): boolean {
  const presentation = presentationOf(file, watermark);
  if (presentation === 'pages' && file.mime !== 'application/pdf') return !watermark && file.preview_pages === null;
  return presentation !== 'unmarkable';
}

/** A file opened inside a data room is watermarked if it or its room says so. */
export function isWatermarked(file: Pick<LinkRow, 'has_watermark'>, room: Pick<LinkRow, 'has_watermark'> | undefined): boolean {
  return file.has_watermark === 1 || room?.has_watermark === 1;
}

/** A paid file that can only be downloaded, not shown, is what the link sells: the viewer does not give it away. */
export function assertNotSoldOnly(file: Pick<LinkRow, 'require_payment' | 'mime' | 'name' | 'kind'>, watermark: boolean): void {
  if (isSold(file) && presentationOf(file, watermark) === 'download') {
    throw forbidden('This file is for sale: buy the original to download it');
  }
}

/** The "buy the original" box of a paid file: its price, where to buy, and once paid, where to download. */
export interface PurchaseOffer {
  priceLabel: string;
  checkoutPath: string;
  /** the visitor's address, to pre-fill the receipt field */
  email: string;
  downloadPath: string | null;
}

/**
 * `pagePath` is the viewer page the file is read on; `checkoutSessionId` is the session Stripe
 * sent the buyer back with (download-original, on the page's own path, checks with Stripe that it is paid).
 */
export function purchaseOffer(
  file: LinkRow,
  pagePath: string,
  session: Pick<VisitorSession, 'email'>,
  checkoutSessionId: string | undefined,
): PurchaseOffer | null {
  const price = salePriceOf(file);
  if (!price) return null;
  return {
    priceLabel: formatPrice(price.amount, price.currency),
    checkoutPath: `${pagePath}/checkout`,
    email: session.email ?? '',
    downloadPath:
      checkoutSessionId && isCheckoutSessionId(checkoutSessionId) ? `${pagePath}/download-original?session_id=${checkoutSessionId}` : null,
  };
}

/** A document as its viewer page shows it. */
export interface DocumentView {
  id: string;
  name: string;
  mime: string;
  size: number;
  presentation: Presentation;
  watermark: boolean;
  /** visitors see pages 1..previewPages only */
  previewPages: number | null;
  bookingUrl: string | null;
  /** the data room it is opened in, which the page links back to */
  room: { id: string; name: string } | null;
  purchase: PurchaseOffer | null;
  /** the owner allows a download (stamped when watermarked) and there is a form of it to give */
  downloadable: boolean;
}

/** The page of `file` for a visitor holding `session` of it, opened on its own or inside `room`. */
export function documentView(file: LinkRow, room: LinkRow | undefined, session: VisitorSession, checkoutSessionId?: string): DocumentView {
  const watermark = isWatermarked(file, room);
  return {
    id: file.id,
    name: file.name,
    mime: file.mime,
    size: file.size,
    presentation: presentationOf(file, watermark),
    watermark,
    previewPages: file.preview_pages,
    // A file without a booking link of its own offers its room's.
    bookingUrl: file.booking_url ?? room?.booking_url ?? null,
    room: room ? { id: room.id, name: room.name } : null,
    purchase: purchaseOffer(file, viewerPathOf(file.id, room?.id), session, checkoutSessionId),
    downloadable: file.allow_download === 1 && isDownloadable(file, watermark),
  };
}

export function stampFor(session: Pick<VisitorSession, 'email' | 'ip' | 'viewId'>, now: number): WatermarkStamp {
  return { identity: session.email ?? session.ip, at: new Date(now), viewId: session.viewId };
}
