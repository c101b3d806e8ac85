import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createConcurrencyLimit } from '../../core/concurrency.js';
import { forbidden, notFound } from '../../core/errors.js';
import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import type { ByteRange } from '../../infra/storage/index.js';
import type { EventRecorder } from '../events/events.service.js';
import type { EncryptedFile, FileReader } from '../files/file-reader.js';
import { viewerPathOf, type LinksService } from '../links/links.service.js';
import { isCheckoutSessionId, salePriceOf } from '../payments/checkout.service.js';
import { formatPrice } from '../payments/price.js';
import type { Visitor, VisitorSession, VisitsService } from '../visits/visits.service.js';
import { isPaged } from './renditions.js';
import { canWatermarkImage, preparePdf, watermarkImage, type WatermarkStamp } from './watermark/index.js';

export type Presentation = 'pages' | 'image' | 'video' | 'audio' | 'download' | 'unmarkable';

// Raster formats only: an SVG is a document that can carry script.
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/**
 * How a file is shown; with a watermark, only what can carry the mark is shown at all. PDFs and
 * Office files are shown as page images drawn on the server (the mark burned into their pixels).
 */
export function presentationOf(file: Pick<LinkRow, 'mime' | 'name' | 'kind'>, watermark: boolean): Presentation {
  const { mime } = file;
  if (isPaged(file)) return 'pages';
  if (INLINE_IMAGES.has(mime)) return !watermark || canWatermarkImage(mime) ? 'image' : 'unmarkable';
  if (watermark) return 'unmarkable';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  return 'download';
}

/**
 * Whether a visitor may be given the file itself (when the owner allows downloads): what can
 * carry the mark when it must (a stamped PDF or image), and an Office file only as it is, with
 * no mark and no preview cut to apply.
 */
export function isDownloadable(file: Pick<LinkRow, 'mime' | 'name' | 'kind' | 'preview_pages'>, watermark: boolean): boolean {
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
  if (file.require_payment === 1 && presentationOf(file, watermark) === 'download') {
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
 * sent the buyer back with (download-original checks with Stripe that it is paid).
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
      checkoutSessionId && isCheckoutSessionId(checkoutSessionId) ? `/api/links/${file.id}/download-original?session_id=${checkoutSessionId}` : null,
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

/** The stored original, sent as it is (Range requests served from `open`). */
export interface StreamedContent {
  kind: 'stream';
  name: string;
  mime: string;
  size: number;
  disposition: 'inline' | 'attachment';
  open(range?: ByteRange): Promise<Readable>;
}

/** A copy made for this visit (stamped, cut or both), whole in memory. */
export interface PreparedContent {
  kind: 'bytes';
  name: string;
  mime: string;
  bytes: Buffer;
  /** the whole document's page count, for a PDF */
  totalPages?: number;
  disposition: 'inline' | 'attachment';
}

export type DocumentContent = StreamedContent | PreparedContent;

// A stamped copy holds the whole document (up to 100 MB) and pdf-lib's objects in memory.
const CONCURRENT_PREPARATIONS = 2;

/**
 * The bytes a visitor with a session receives. Watermarked and preview copies are made
 * on the server for this visit; the stored original is streamed only when neither applies.
 */
export function createDocumentsService(deps: {
  db: Db;
  reader: Pick<FileReader, 'open'>;
  clock: Clock;
  visits: Pick<VisitsService, 'requireSession' | 'inspect'>;
  links: Pick<LinksService, 'findForVisitor'>;
  events: EventRecorder;
}) {
  const { db, reader, clock, visits, links, events } = deps;
  const preparing = createConcurrencyLimit(CONCURRENT_PREPARATIONS);

  /** The copy this visit receives: stamped and/or cut, made one or two at a time. */
  function prepare(stored: EncryptedFile, file: LinkRow, presentation: 'pdf' | 'image', stamp: WatermarkStamp | undefined) {
    return preparing(async () => {
      const original = await buffer(await reader.open(stored));
      if (presentation === 'image') return { ...(await watermarkImage(original, stamp!)), totalPages: undefined };
      const pdf = await preparePdf(original, { stamp, previewPages: file.preview_pages });
      return {
        bytes: Buffer.from(pdf.bytes.buffer, pdf.bytes.byteOffset, pdf.bytes.byteLength),
        mime: 'application/pdf',
        totalPages: pdf.totalPages,
      };
    });
  }

  /** What `file` leaves as for the visit holding `session`: shown (not for paged documents: their pages are), or downloaded. */
  async function deliver(file: LinkRow, session: VisitorSession, watermark: boolean, use: 'show' | 'attachment'): Promise<DocumentContent> {
    if (!file.blob_key || !file.wrapped_key || file.blob_purged_at !== null) throw notFound('Document');
    const stored = { blobKey: file.blob_key, wrappedKey: file.wrapped_key, size: file.size };
    const presentation = presentationOf(file, watermark);
    if (use === 'show' ? presentation === 'pages' || presentation === 'unmarkable' : !isDownloadable(file, watermark)) {
      throw notFound('A shown form of this document');
    }
    const copyKind =
      file.mime === 'application/pdf' && (watermark || file.preview_pages !== null) ? 'pdf' : presentation === 'image' && watermark ? 'image' : null;
    if (!copyKind) {
      return {
        kind: 'stream',
        name: file.name,
        mime: file.mime,
        size: file.size,
        disposition: presentation === 'download' || use === 'attachment' ? 'attachment' : 'inline',
        open: (range?: ByteRange) => reader.open(stored, range),
      };
    }
    const prepared = await prepare(stored, file, copyKind, watermark ? stampFor(session, clock()) : undefined);
    return {
      kind: 'bytes',
      name: file.name,
      mime: prepared.mime,
      bytes: prepared.bytes,
      ...(prepared.totalPages !== undefined && { totalPages: prepared.totalPages }),
      disposition: use === 'attachment' ? 'attachment' : 'inline',
    };
  }

  return {
    /** The document bytes of a link the visitor holds a session of: 403 without one, 404 for a room or a file that cannot be shown. */
    async contentFor(linkId: string, visitor: Visitor): Promise<DocumentContent> {
      const { link, room, session } = await visits.requireSession(linkId, visitor);
      if (link.kind !== 'file') throw notFound('Document');
      const watermark = isWatermarked(link, room);
      assertNotSoldOnly(link, watermark);
      return deliver(link, session, watermark, 'show');
    },

    /** The PDF of the agreement the visitor is asked to accept on `linkId`, shown inline; 404 at any other step. */
    async agreementPdfFor(linkId: string, visitor: Visitor): Promise<DocumentContent> {
      const { state } = await visits.inspect(linkId, visitor);
      const pdfLinkId = state.step === 'agreement' ? state.agreement.pdfLinkId : null;
      const pdf = pdfLinkId === null ? undefined : await links.findForVisitor(pdfLinkId);
      if (!pdf?.blob_key || !pdf.wrapped_key || pdf.blob_purged_at !== null) throw notFound('Agreement');
      const stored = { blobKey: pdf.blob_key, wrappedKey: pdf.wrapped_key, size: pdf.size };
      return {
        kind: 'stream',
        name: pdf.name,
        mime: 'application/pdf',
        size: pdf.size,
        disposition: 'inline',
        open: (range) => reader.open(stored, range),
      };
    },

    /**
     * The download a viewer page offers when the owner allows it: the original, or a copy
     * stamped for this visitor (and cut to the preview) when the link says so; counted as a download.
     */
    async downloadFor(linkId: string, visitor: Visitor): Promise<DocumentContent> {
      const { link, room, session } = await visits.requireSession(linkId, visitor);
      if (link.kind !== 'file') throw notFound('Document');
      if (link.allow_download !== 1) throw forbidden('The sender does not allow downloading this document');
      const content = await deliver(link, session, isWatermarked(link, room), 'attachment');
      await db.transaction().execute((trx) =>
        events.record(trx, {
          accountId: link.account_id,
          type: 'link.downloaded',
          linkId: link.id,
          payload: { linkName: link.name, email: session.email, ip: session.ip },
        }),
      );
      return content;
    },
  };
}

export type DocumentsService = ReturnType<typeof createDocumentsService>;
