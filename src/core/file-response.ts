import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import parseRange from 'range-parser';
import type { ByteRange } from '../infra/storage/index.js';
import { methodNotAllowed } from './errors.js';
import { BIDI_CONTROLS } from './text.js';

/** RFC 6266 / 5987: an ASCII fallback name plus the UTF-8 name, without bidirectional controls (a name stored before they were dropped). */
export function contentDisposition(type: 'attachment' | 'inline', fileName: string): string {
  const name = fileName.replace(BIDI_CONTROLS, '');
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * onRequest hook of a download whose GET spends something (a token's use, one of a purchase's
 * downloads) or is counted as a download. Fastify answers HEAD with the GET's handler, so a link
 * checker or a mail scanner would spend it unseen: HEAD is refused instead.
 */
export async function refuseHeadOfSpendingDownload(request: FastifyRequest): Promise<void> {
  if (request.method === 'HEAD') throw methodNotAllowed('GET', 'A HEAD request would count as a download without sending it: send GET');
}

/** Sends CSV text as an attachment, each piece as soon as it is made (a long export is never whole in memory). */
export function sendCsv(reply: FastifyReply, fileName: string, lines: AsyncIterable<string>): FastifyReply {
  return reply.type('text/csv; charset=utf-8').header('content-disposition', contentDisposition('attachment', fileName)).send(Readable.from(lines));
}

/**
 * Types a browser never runs, so a file keeps its own when saved. Any other (HTML, SVG, XML, scripts,
 * stylesheets…) leaves as bytes: even as an attachment, a `<script src>` or `<link rel=stylesheet>`
 * on one of our pages would run an uploaded file of that type, since CSP's 'self' admits it.
 */
const INERT_TYPES =
  /^(image\/(png|jpeg|gif|webp|avif|tiff|bmp)|video\/[\w.+-]+|audio\/[\w.+-]+|text\/(plain|csv)|application\/(pdf|zip|msword|rtf|vnd\.[\w.+-]+))$/i;

const savedType = (mime: string) => (INERT_TYPES.test(mime) ? mime : 'application/octet-stream');

export interface FileBody {
  name: string;
  mime: string;
  size: number;
  open(range?: ByteRange): Promise<Readable>;
}

/**
 * Sends a file with HTTP Range support: one satisfiable range → 206, an unsatisfiable one
 * → 416, none (or several, which we do not combine) → the whole file.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: FileBody,
  disposition: 'attachment' | 'inline',
): Promise<FastifyReply> {
  const header = request.headers.range;
  const ranges = header && file.size > 0 ? parseRange(file.size, header, { combine: true }) : undefined;
  if (ranges === -1 || (header && file.size === 0)) {
    return reply.code(416).header('content-range', `bytes */${file.size}`).send({ error: 'Range not satisfiable' });
  }
  reply
    .header('content-type', disposition === 'attachment' ? savedType(file.mime) : file.mime)
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', contentDisposition(disposition, file.name))
    .header('accept-ranges', 'bytes')
    .header('cache-control', 'private, no-store');
  if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
    const { start, end } = ranges[0]!;
    reply
      .code(206)
      .header('content-range', `bytes ${start}-${end}/${file.size}`)
      .header('content-length', end - start + 1);
    return reply.send(await file.open({ start, endInclusive: end }));
  }
  reply.header('content-length', file.size);
  return reply.send(await file.open());
}
