import type { Readable } from 'node:stream';
import { createConcurrencyLimit } from '../../core/concurrency.js';
import { forbidden, notFound, unprocessable } from '../../core/errors.js';
import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import type { ByteRange } from '../../infra/storage/index.js';
import type { EventRecorder } from '../events/events.service.js';
import type { EncryptedFile, FileReader } from '../files/file-reader.js';
import type { LinksService } from '../links/links.service.js';
import type { Visitor, VisitorSession } from '../visits/visitor.js';
import type { VisitsService } from '../visits/visits.service.js';
import { assertNotSoldOnly, isDownloadable, isSold, isWatermarked, presentationOf, SOLD_IMAGE_SIDE, stampFor } from './document-view.js';
import * as repo from './documents.repo.js';
import { tooManyPages } from './renditions.js';
import { imageCopy, preparePdf, type WatermarkStamp } from './watermark/index.js';

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
  reader: Pick<FileReader, 'open' | 'read'>;
  clock: Clock;
  visits: Pick<VisitsService, 'requireSession' | 'inspect'>;
  links: Pick<LinksService, 'findForVisitor'>;
  events: EventRecorder;
  /** A PDF of more pages is not copied for a visitor: pdf-lib holds every page of a copy in memory. */
  maxPages: number;
}) {
  const { db, reader, clock, visits, links, events, maxPages } = deps;

  /** Refuses a copy of a PDF longer than the limit, once its page count is known (its pages' job opened it). */
  async function assertCopyable(file: LinkRow): Promise<void> {
    const current = (await repo.findDocumentsOfLink(db, file.id)).find((document) => document.version === file.version);
    if (current?.page_count != null && current.page_count > maxPages) throw unprocessable(tooManyPages(current.page_count, maxPages));
  }
  const preparing = createConcurrencyLimit(CONCURRENT_PREPARATIONS);

  /** The copy this visit receives: stamped and/or cut (a sold picture made smaller), made one or two at a time. */
  function prepare(stored: EncryptedFile, file: LinkRow, presentation: 'pdf' | 'image', stamp: WatermarkStamp | undefined) {
    return preparing(async () => {
      const original = await reader.read(stored);
      if (presentation === 'image') {
        return { ...(await imageCopy(original, { stamp, ...(isSold(file) && { maxSide: SOLD_IMAGE_SIDE }) })), totalPages: undefined };
      }
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
      file.mime === 'application/pdf' && (watermark || file.preview_pages !== null)
        ? 'pdf'
        : presentation === 'image' && (watermark || isSold(file))
          ? 'image'
          : null;
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
    if (copyKind === 'pdf') await assertCopyable(file);
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
     * stamped for this visitor (and cut to the preview) when the link says so. Counted as a download
     * unless `continuing` one: a range past the first byte (a resumed download, a download manager's
     * other parts) is the same download.
     */
    async downloadFor(linkId: string, visitor: Visitor, options: { continuing?: boolean } = {}): Promise<DocumentContent> {
      const { link, room, session } = await visits.requireSession(linkId, visitor);
      if (link.kind !== 'file') throw notFound('Document');
      if (link.allow_download !== 1) throw forbidden('The sender does not allow downloading this document');
      const content = await deliver(link, session, isWatermarked(link, room), 'attachment');
      if (options.continuing) return content;
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
