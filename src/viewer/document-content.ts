import { buffer } from 'node:stream/consumers';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentDisposition, sendFile } from '../core/file-response.js';
import { notFound } from '../core/errors.js';
import type { LinkRow, VisitRow } from '../db/types.js';
import { createConcurrencyLimit } from '../core/concurrency.js';
import type { EncryptedFile, FileReader } from '../modules/files/file-reader.js';
import { canWatermarkImage, preparePdf, watermarkImage, type WatermarkStamp } from './watermark/index.js';

export type Presentation = 'pdf' | 'image' | 'video' | 'audio' | 'download' | 'unmarkable';

// Raster formats only: an SVG is a document that can carry script.
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/** How a file is shown; with a watermark, only what can carry the mark is shown at all. */
export function presentationOf(mime: string, watermark: boolean): Presentation {
  if (mime === 'application/pdf') return 'pdf';
  if (INLINE_IMAGES.has(mime)) return !watermark || canWatermarkImage(mime) ? 'image' : 'unmarkable';
  if (watermark) return 'unmarkable';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  return 'download';
}

export function stampFor(visit: VisitRow, now: number): WatermarkStamp {
  return { identity: visit.email ?? visit.ip, at: new Date(now), viewId: visit.view_id ?? '' };
}

// A stamped copy holds the whole document (up to 100 MB) and pdf-lib's objects in memory.
const CONCURRENT_PREPARATIONS = 2;

/**
 * The bytes a visitor with a session receives. Watermarked and preview copies are made
 * on the server for this visit; the stored original is streamed only when neither applies.
 */
export function createDocumentContent(deps: { reader: FileReader; clock: () => number }) {
  const { reader, clock } = deps;
  const preparing = createConcurrencyLimit(CONCURRENT_PREPARATIONS);

  /** The copy this visit receives: stamped and/or cut, made one or two at a time. */
  function prepare(stored: EncryptedFile, file: LinkRow, presentation: 'pdf' | 'image', stamp: WatermarkStamp | undefined) {
    return preparing(async () => {
      const original = await buffer(await reader.open(stored));
      if (presentation === 'image') return { ...(await watermarkImage(original, stamp!)), totalPages: undefined };
      const pdf = await preparePdf(original, { stamp, previewPages: file.preview_pages });
      return { bytes: Buffer.from(pdf.bytes.buffer, pdf.bytes.byteOffset, pdf.bytes.byteLength), mime: 'application/pdf', totalPages: pdf.totalPages };
    });
  }

  return {
    async send(request: FastifyRequest, reply: FastifyReply, file: LinkRow, visit: VisitRow, watermark: boolean): Promise<FastifyReply> {
      if (!file.blob_key || !file.wrapped_key || file.blob_purged_at !== null) throw notFound('Document');
      const stored = { blobKey: file.blob_key, wrappedKey: file.wrapped_key, size: file.size };
      const presentation = presentationOf(file.mime, watermark);
      reply.header('cache-control', 'private, no-store');

      if (presentation === 'unmarkable') throw notFound('A shown form of this document');
      const copyKind = presentation === 'pdf' && (watermark || file.preview_pages !== null) ? 'pdf' : presentation === 'image' && watermark ? 'image' : null;
      if (!copyKind) {
        const body = { name: file.name, mime: file.mime, size: file.size, open: (range?: { start: number; endInclusive: number }) => reader.open(stored, range) };
        return sendFile(request, reply, body, presentation === 'download' ? 'attachment' : 'inline');
      }

      const prepared = await prepare(stored, file, copyKind, watermark ? stampFor(visit, clock()) : undefined);
      if (prepared.totalPages !== undefined) reply.header('x-total-pages', String(prepared.totalPages));
      return reply.type(prepared.mime).header('content-disposition', contentDisposition('inline', file.name)).send(prepared.bytes);
    },
  };
}

export type DocumentContent = ReturnType<typeof createDocumentContent>;
