import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { test } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { AppError } from '../../core/errors.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import { roomChildName } from '../links/links.service.js';
import type { VisitorSession } from '../visits/visitor.js';
import { assertNotSoldOnly, documentView, isWatermarked, presentationOf, purchaseOffer, stampFor } from './document-view.js';
import { createDocumentsService, type DocumentContent } from './documents.service.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0);
const session: VisitorSession = {
  visitId: 1,
  email: 'ana@example.com',
  ip: '203.0.113.7',
  viewId: 'K3Y9QZ',
  startedAt: NOW,
  expiresAt: NOW + 3_600_000,
};

function linkRow(fields: Partial<LinkRow> = {}): LinkRow {
  return {
    id: 'file0000000000000001',
    account_id: 1,
    kind: 'file',
    name: 'deck.pdf',
    mime: 'application/pdf',
    version: 1,
    blob_key: 'links/file/v1',
    wrapped_key: 'wrapped',
    size: 0,
    sha256: null,
    is_active: 1,
    password_hash: null,
    has_watermark: 0,
    requires_approval: 0,
    requires_otp: 0,
    allowed_emails: '[]',
    allowed_domains: '[]',
    booking_url: null,
    preview_pages: null,
    view_session_ttl: 3600,
    max_views: 0,
    views: 0,
    require_payment: 0,
    download_price: null,
    download_currency: null,
    created_at: NOW,
    expires_at: NOW + 86_400_000,
    blob_purged_at: null,
    expiry_noticed_at: null,
    in_expired_tab: 0,
    require_email: 0,
    blocked_emails: '[]',
    blocked_domains: '[]',
    blocked_attempts: 0,
    allow_download: 0,
    notify_on_view: 1,
    created_by: null,
    preview_title: null,
    preview_description: null,
    preview_image_key: null,
    agreement_id: null,
    last_viewed_at: 0,
    ...fields,
  };
}

const room = (fields: Partial<LinkRow> = {}) =>
  linkRow({ id: 'room0000000000000001', kind: 'room', name: 'Deal room', mime: 'application/vnd.linkvault.room', ...fields });
const forSale = { require_payment: 1, download_price: 1200, download_currency: 'eur' };

async function pdfOf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let page = 0; page < pages; page += 1) doc.addPage([200, 200]).drawText(`page ${page + 1}`);
  return Buffer.from(await doc.save());
}

/** The service over one file in memory, as the visitor holding `session` of `file` (inside `inRoom`, if given). */
function serviceFor(file: LinkRow, bytes: Buffer, inRoom?: LinkRow) {
  const opened: Array<{ start: number; endInclusive: number } | undefined> = [];
  const documents = createDocumentsService({
    // Downloads (the only user of the database and events here) are tested over HTTP.
    db: {} as Db,
    events: { record: () => Promise.reject(new Error('no events in these tests')) },
    links: { findForVisitor: () => Promise.resolve(undefined) },
    clock: () => NOW,
    maxPages: 2000,
    reader: {
      async open(_stored, range) {
        opened.push(range);
        return Readable.from([range ? bytes.subarray(range.start, range.endInclusive + 1) : bytes]);
      },
      async read() {
        opened.push(undefined);
        return Buffer.from(bytes);
      },
    },
    visits: { requireSession: async () => ({ link: file, room: inRoom, session }), inspect: async () => ({ link: file, state: { step: 'ready' } }) },
  });
  return { content: () => documents.contentFor(file.id, { token: 't', ip: session.ip, userAgent: null }), opened };
}

async function refusal(promise: Promise<unknown>): Promise<number> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
  return error.status;
}

const bytesOf = (content: DocumentContent) =>
  content.kind === 'bytes' ? content.bytes : assert.fail(`expected a prepared copy, got ${content.kind}`);

test('presentation: PDFs and Office files as pages; only what can carry the mark is shown when watermarked; SVG and HTML are downloads', () => {
  const file = (mime: string, name = 'file', require_payment = 0) => ({ mime, name, kind: 'file' as const, require_payment });
  assert.equal(presentationOf(file('application/pdf', 'deck.pdf'), true), 'pages');
  assert.equal(presentationOf(file('application/vnd.openxmlformats-officedocument.presentationml.presentation', 'deck.pptx'), true), 'pages');
  assert.equal(presentationOf(file('image/png'), true), 'image');
  assert.equal(presentationOf(file('image/png'), false), 'image');
  assert.equal(presentationOf(file('image/svg+xml', 'logo.svg'), false), 'download');
  assert.equal(presentationOf(file('text/html', 'page.html'), false), 'download');
  assert.equal(presentationOf(file('video/mp4'), false), 'video');
  assert.equal(presentationOf(file('audio/mpeg'), false), 'audio');
  assert.equal(presentationOf(file('video/mp4'), true), 'unmarkable');
  assert.equal(presentationOf(file('application/zip', 'data.zip'), true), 'unmarkable');
  assert.equal(presentationOf(file('video/mp4', 'film.mp4', 1), false), 'download', 'a sold recording is not played: it is what is bought');
  assert.equal(presentationOf(file('audio/mpeg', 'song.mp3', 1), false), 'download');
  assert.equal(presentationOf(file('image/png', 'photo.png', 1), false), 'image', 'a sold picture is shown, smaller');
});

test('a file in a data room is watermarked if it or its room says so', () => {
  assert.equal(isWatermarked(linkRow(), undefined), false);
  assert.equal(isWatermarked(linkRow({ has_watermark: 1 }), undefined), true);
  assert.equal(isWatermarked(linkRow(), room({ has_watermark: 1 })), true);
  assert.equal(isWatermarked(linkRow({ has_watermark: 1 }), room()), true);
  assert.equal(isWatermarked(linkRow(), room()), false);

  assert.deepEqual(stampFor(session, NOW), { identity: 'ana@example.com', at: new Date(NOW), viewId: 'K3Y9QZ' });
  assert.equal(stampFor({ ...session, email: null }, NOW).identity, '203.0.113.7', 'a visitor who left no e-mail is named by IP');

  const view = documentView(linkRow({ mime: 'video/mp4' }), room({ has_watermark: 1 }), session);
  assert.equal(view.watermark, true);
  assert.equal(view.presentation, 'unmarkable', 'a video in a watermarked room cannot be shown');
});

test('sold only: a paid file the viewer could only hand over as a download is refused; shown ones are not', () => {
  assert.throws(
    () => assertNotSoldOnly(linkRow({ ...forSale, mime: 'application/zip' }), false),
    (error: AppError) => error.status === 403,
  );
  assert.doesNotThrow(() => assertNotSoldOnly(linkRow({ ...forSale, mime: 'application/pdf' }), false));
  assert.doesNotThrow(() => assertNotSoldOnly(linkRow({ mime: 'application/zip' }), false), 'a free file is a download like any other');
});

test('purchase offer: price label, checkout on the page it is read on, the download once Stripe sent the buyer back', () => {
  assert.equal(purchaseOffer(linkRow(), '/v/x', session, undefined), null, 'a free file has no offer');
  assert.equal(purchaseOffer(linkRow({ require_payment: 1 }), '/v/x', session, undefined), null, 'no price, nothing to sell');

  const file = linkRow(forSale);
  assert.deepEqual(purchaseOffer(file, `/v/${file.id}`, session, undefined), {
    priceLabel: '€12.00',
    checkoutPath: `/v/${file.id}/checkout`,
    email: 'ana@example.com',
    downloadPath: null,
  });
  assert.equal(purchaseOffer(file, '/v/x', { email: null }, undefined)?.email, '');
  assert.equal(
    purchaseOffer(file, '/v/x', session, 'cs_test_a1B2')?.downloadPath,
    '/v/x/download-original?session_id=cs_test_a1B2',
    "on the page's own path: inside a room, never the link's id",
  );
  assert.equal(purchaseOffer(file, '/v/x', session, '"><script>')?.downloadPath, null, 'only a checkout session id makes a download link');

  const inRoom = documentView(file, room({ booking_url: 'https://cal.example.com/ana' }), session);
  assert.equal(inRoom.purchase?.checkoutPath, `/v/room0000000000000001/d/${roomChildName('room0000000000000001', file.id)}/checkout`);
  assert.deepEqual(inRoom.room, { id: 'room0000000000000001', name: 'Deal room' });
  assert.equal(inRoom.bookingUrl, 'https://cal.example.com/ana', "a file without a booking link offers its room's");
  assert.equal(
    documentView(linkRow({ booking_url: 'https://own.example.com' }), room({ booking_url: 'https://cal.example.com' }), session).bookingUrl,
    'https://own.example.com',
  );
  assert.equal(documentView(file, undefined, session).room, null);
});

test('content: the original streams (with ranges) when nothing is to be marked; downloads are attachments; paged documents only as pages', async () => {
  const video = Buffer.from('not really a video, only bytes');
  const { content, opened } = serviceFor(linkRow({ name: 'clip.mp4', mime: 'video/mp4', size: video.length }), video);
  const streamed = await content();
  assert.equal(streamed.kind, 'stream');
  if (streamed.kind !== 'stream') return;
  assert.deepEqual([streamed.name, streamed.mime, streamed.size, streamed.disposition], ['clip.mp4', 'video/mp4', video.length, 'inline']);
  assert.deepEqual(await buffer(await streamed.open({ start: 0, endInclusive: 3 })), video.subarray(0, 4));
  assert.deepEqual(opened, [{ start: 0, endInclusive: 3 }], 'nothing is read before the range is asked for');

  const zip = serviceFor(linkRow({ name: 'data.zip', mime: 'application/zip', size: 3 }), Buffer.from('zip'));
  const download = await zip.content();
  assert.equal(download.kind === 'stream' && download.disposition, 'attachment');

  const pdf = await pdfOf(2);
  assert.equal(await refusal(serviceFor(linkRow({ size: pdf.length }), pdf).content()), 404, 'a PDF is shown as page images, never sent whole');
});

test('content: a watermark inherited from the room makes a stamped copy of an image for this visit', async () => {
  const { default: sharp } = await import('sharp');
  const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  const marked = bytesOf(
    await serviceFor(linkRow({ name: 'photo.png', mime: 'image/png', size: png.length }), png, room({ has_watermark: 1 })).content(),
  );
  assert.notDeepEqual(marked, png);
  assert.equal((await sharp(marked).metadata()).width, 400);
});

test('content: refused for a room, a sold-only file, a type that cannot carry the mark, and a purged blob', async () => {
  const bytes = Buffer.from('x');
  assert.equal(await refusal(serviceFor(room(), bytes).content()), 404);
  assert.equal(await refusal(serviceFor(linkRow({ ...forSale, mime: 'application/zip' }), bytes).content()), 403);
  assert.equal(await refusal(serviceFor(linkRow({ mime: 'video/mp4' }), bytes, room({ has_watermark: 1 })).content()), 404);
  assert.equal(await refusal(serviceFor(linkRow({ blob_purged_at: NOW }), bytes).content()), 404);
});
