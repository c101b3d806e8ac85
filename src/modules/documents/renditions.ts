/**
 * Renditions of a paged file's version: the PDF LibreOffice makes of an Office file, then each
 * page as a WebP 1600 px wide, a 320 px thumbnail and its text, page 1 first. The work is the
 * `document.render` job, queued in the transaction that stores the version; it renders for a
 * bounded slice of time and queues its own continuation, so a lease never has to outlast a
 * 300-page document and a killed process loses at most the pages it was drawing. A slice ends
 * early when another document is waiting (a new upload is not kept behind a long one) and when
 * the server stops (a restart does not wait for the slice).
 */
import { createConcurrencyLimit, once } from '../../core/concurrency.js';
import { serviceUnavailable } from '../../core/errors.js';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import { randomBase62 } from '../../infra/crypto/tokens.js';
import { ConversionError, isConvertible, type OfficeConverter } from '../../infra/convert/office-converter.js';
import { fairKeyOfAccount, PermanentJobError, type JobKind, type JobQueue, type RunningJob } from '../../infra/jobs/index.js';
import {
  openPdf,
  PdfOpenError,
  PdfPageTimeoutError,
  PdfRendererStoppedError,
  type OpenedPdf,
  type RenderedPage,
} from '../../infra/pdf/pdf-renderer.js';
import type { BlobStore } from '../../infra/storage/index.js';
import type { FileIntake } from '../files/file-intake.js';
import type { EncryptedFile, FileReader } from '../files/file-reader.js';
import type { BlobOwner } from '../files/orphan-blob-sweeper.js';
import type { LinksService } from '../links/links.service.js';
import * as repo from './documents.repo.js';

export const DOCUMENT_JOB = 'document.render';
export const PAGE_WIDTH = 1600;
export const THUMBNAIL_WIDTH = 320;
/** A run renders for about this long, then queues the rest. */
const SLICE_MS = 20_000;
/** ...or gives way after this long to another document waiting its turn: shorter turns would spend more on opening the PDF again. */
const TURN_MS = 5_000;
/**
 * Pages prepared at once by a run. Encoding a page's WebP takes most of its time (140 ms of
 * 150 for a page of text) on one core, libwebp's; a second page in flight keeps another core
 * busy and nearly halves a document's time on two cores. PDFium still draws one page at a time.
 */
const PAGES_AT_ONCE = 2;
/** Pages drawn ahead for visitors at once, in all; the others wait their turn. */
const DRAWN_AHEAD_AT_ONCE = 2;
/**
 * Pages that may wait to be drawn ahead. Each opens the whole PDF again: past this many, a page is
 * answered 503 (the viewer asks again) rather than a visitor queueing every page of a long document.
 */
const DRAWN_AHEAD_WAITING = 8;
const BLOB_PREFIX = 'documents/';
/** Where the renditions of every version of a link are stored. */
export const renditionsPrefixOf = (linkId: string) => `${BLOB_PREFIX}${linkId}/`;

/**
 * What a document's page images may take in all: its PDF a hundred times over, and a base more
 * (`DOCUMENT_IMAGES_BASE_MB`, 256 MiB). A text page's images take about a tenth of a megabyte and
 * a photo's a few, but a PDF of a few kilobytes per page can draw one large picture on each of
 * thousands of pages: tens of gigabytes.
 */
const renditionBudgetBytes = (pdfBytes: number, baseBytes: number) => baseBytes + 100 * pdfBytes;

const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0);

/** A document's budget (bytes), and what is left of it while its pages are drawn. */
interface RenditionBudget {
  total: number;
  left: number;
}

/** Why a document of `pages` pages is not shown as pages, nor copied for a visitor. */
export const tooManyPages = (pages: number, maxPages: number) =>
  `This document has ${pages} pages; this server shows documents of at most ${maxPages} pages (MAX_DOCUMENT_PAGES)`;

/** Whether a file is shown as pages: a PDF, or what LibreOffice turns into one. */
export function isPaged(file: Pick<LinkRow, 'mime' | 'name' | 'kind'>): boolean {
  return file.kind === 'file' && (file.mime === 'application/pdf' || isConvertible(file.name, file.mime));
}

const extensionOf = (file: Pick<LinkRow, 'name' | 'mime'>) => {
  const dot = file.name.lastIndexOf('.');
  if (dot > 0) return file.name.slice(dot + 1).toLowerCase();
  return file.mime === 'text/csv' ? 'csv' : 'txt';
};

const storedOriginal = (link: LinkRow): EncryptedFile | null =>
  link.blob_key && link.wrapped_key && link.blob_purged_at === null
    ? { blobKey: link.blob_key, wrappedKey: link.wrapped_key, size: link.size }
    : null;

/** Text as PostgreSQL can keep it. */
const storableText = (text: string) => text.replaceAll('\u0000', '').trim();

/** A failure that is the file's, not the server's: recorded on the document, never retried. */
class UnrenderableError extends Error {}

interface RenderPayload {
  documentId: number;
}

/** What a slice asks of its job runner: whether to end early, and the signal that ends a conversion when the runner stops. */
type Turns = Pick<RunningJob, 'stopping' | 'othersWaiting' | 'signal'>;

export function createRenditions(deps: {
  db: Db;
  clock: Clock;
  intake: Pick<FileIntake, 'seal'>;
  reader: Pick<FileReader, 'open' | 'read'>;
  blobs: Pick<BlobStore, 'delete'>;
  converter: OfficeConverter;
  jobs: Pick<JobQueue, 'enqueue'>;
  links: Pick<LinksService, 'findForVisitor'>;
  convertTimeoutMs: number;
  /** A page still being drawn after this long fails its document. */
  pageTimeoutMs: number;
  /** A document of more pages ends failed before any is drawn. */
  maxPages: number;
  /** What a document's page images may take beyond 100 times its PDF. */
  imagesBaseBytes: number;
  concurrency: number;
}) {
  const { db, clock, intake, reader, blobs, converter, jobs, links, maxPages } = deps;
  // Each page drawn ahead opens its own copy of the document (decrypted, then in PDFium's memory).
  const drawingAheadAtOnce = createConcurrencyLimit(DRAWN_AHEAD_AT_ONCE, {
    maxWaiting: DRAWN_AHEAD_WAITING,
    full: () => serviceUnavailable('This page is still being prepared; it will be ready in a moment', 2),
  });
  const blobBase = (document: repo.DocumentRow) => `${renditionsPrefixOf(document.link_id)}v${document.version}-${document.id}/`;

  async function deleteBlobs(keys: readonly string[]): Promise<void> {
    for (const key of keys) await blobs.delete(key);
  }

  async function fail(document: repo.DocumentRow, reason: string): Promise<void> {
    await repo.updateDocument(db, document.id, { status: 'failed', error: reason }, clock());
  }

  /** The version's PDF: the upload itself, or the one converted earlier, or converted now and kept. */
  async function pdfOf(document: repo.DocumentRow, link: LinkRow, signal?: AbortSignal): Promise<Buffer> {
    const original = storedOriginal(link);
    if (!original) throw new UnrenderableError('The file is no longer stored');
    if (link.mime === 'application/pdf') return reader.read(original);
    if (document.pdf_blob_key && document.pdf_wrapped_key && document.pdf_size !== null) {
      return reader.read({ blobKey: document.pdf_blob_key, wrappedKey: document.pdf_wrapped_key, size: document.pdf_size });
    }
    if (!(await converter.available())) throw new UnrenderableError('Previews of this file type need LibreOffice, which this server does not have');
    let pdf: Buffer;
    try {
      pdf = await converter.toPdf(await reader.open(original), extensionOf(link), { signal });
    } catch (error) {
      if (error instanceof ConversionError && error.reason === 'failed') {
        throw new UnrenderableError('LibreOffice could not convert this file (damaged, protected by a password, or not what its name says)');
      }
      if (error instanceof ConversionError && error.reason === 'too-large') throw new UnrenderableError(error.message);
      throw error;
    }
    const sealed = await intake.seal(`${blobBase(document)}document-${randomBase62(8)}.pdf`, pdf);
    await repo.updateDocument(db, document.id, { pdf_blob_key: sealed.blobKey, pdf_wrapped_key: sealed.wrappedKey, pdf_size: sealed.size }, clock());
    return pdf;
  }

  /** The document's PDF opened for drawing, and what its page images may still take. */
  async function open(document: repo.DocumentRow, link: LinkRow, signal?: AbortSignal): Promise<{ pdf: OpenedPdf; budget: RenditionBudget }> {
    const bytes = await pdfOf(document, link, signal);
    const total = renditionBudgetBytes(bytes.length, deps.imagesBaseBytes);
    const budget = { total, left: total - (await repo.renditionBytes(db, document.id)) };
    try {
      return { pdf: await openPdf(bytes, { pageTimeoutMs: deps.pageTimeoutMs }), budget };
    } catch (error) {
      if (error instanceof PdfOpenError) throw new UnrenderableError(error.message);
      throw error;
    }
  }

  /**
   * Draws page `number`, seals its image, thumbnail and stamp base (the JPEG watermarked copies are
   * made from: it decodes five times faster than the WebP), and records them; a page already
   * recorded keeps the first.
   */
  async function renderPage(document: repo.DocumentRow, pdf: OpenedPdf, number: number, budget: RenditionBudget): Promise<void> {
    const { default: sharp } = await import('sharp');
    // The page's calls to PDFium are queued together, so the other page in flight never comes between
    // them (a slow page would hold this one up). The thumbnail is drawn at its own size: PDFium does
    // that in a tenth of the time of scaling the page down.
    const calls = [pdf.renderPage(number, PAGE_WIDTH), pdf.renderPage(number, THUMBNAIL_WIDTH), pdf.pageText(number)] as const;
    const [page, small, text] = await Promise.all(calls).catch(async (error: unknown) => {
      // A page past its limit ends the renderer, which fails the page's other calls too: the limit is the cause.
      const reasons = (await Promise.allSettled(calls)).flatMap((call) => (call.status === 'rejected' ? [call.reason as unknown] : []));
      throw reasons.find((reason) => reason instanceof PdfPageTimeoutError) ?? error;
    });
    // The pages are opaque: no alpha plane to encode.
    const pixels = (drawn: RenderedPage) => sharp(drawn.rgba, { raw: { width: drawn.width, height: drawn.height, channels: 4 } }).removeAlpha();
    const [image, thumbnail, stampBase] = await Promise.all([
      pixels(page).webp({ quality: 80, effort: 2 }).toBuffer(),
      pixels(small).webp({ quality: 70, effort: 2 }).toBuffer(),
      // Never sent: plain Huffman tables cost a larger file (a text page's 27 KB become 63 KB, a photo's
      // 2.4 MB 2.5 MB) but no pixel, and save its encoding 11 ms (text) to 74 ms (photo) of a page's CPU.
      pixels(page).jpeg({ quality: 90, optimiseCoding: false }).toBuffer(),
    ]);
    budget.left -= image.length + thumbnail.length + stampBase.length;
    if (budget.left < 0) {
      throw new UnrenderableError(
        `Its pages would take more than ${megabytes(budget.total)} MB as images (the same large picture drawn on many pages, say), so it is not shown page by page`,
      );
    }
    const tag = randomBase62(8);
    const sealedImage = await intake.seal(`${blobBase(document)}page-${number}-${tag}.webp`, image);
    const sealedThumbnail = await intake.seal(`${blobBase(document)}thumbnail-${number}-${tag}.webp`, thumbnail);
    const sealedBase = await intake.seal(`${blobBase(document)}stamp-base-${number}-${tag}.jpg`, stampBase);
    const recorded = await repo.insertPage(db, {
      document_id: document.id,
      page: number,
      width: page.width,
      height: page.height,
      image_key: sealedImage.blobKey,
      image_wrapped_key: sealedImage.wrappedKey,
      image_size: sealedImage.size,
      thumbnail_key: sealedThumbnail.blobKey,
      thumbnail_wrapped_key: sealedThumbnail.wrappedKey,
      thumbnail_size: sealedThumbnail.size,
      stamp_base_key: sealedBase.blobKey,
      stamp_base_wrapped_key: sealedBase.wrappedKey,
      stamp_base_size: sealedBase.size,
      text: storableText(text),
    });
    if (!recorded) await deleteBlobs([sealedImage.blobKey, sealedThumbnail.blobKey, sealedBase.blobKey]);
  }

  /** The version is shown from now on; the link's older versions' renditions go. */
  async function finish(document: repo.DocumentRow): Promise<void> {
    const older = (await repo.findDocumentsOfLink(db, document.link_id)).filter((other) => other.version < document.version).map((other) => other.id);
    const keys = await repo.findBlobKeysOfDocuments(db, older);
    await db.transaction().execute(async (trx) => {
      await repo.updateDocument(trx, document.id, { status: 'ready', error: null }, clock());
      await repo.deleteDocuments(trx, older);
    });
    await deleteBlobs(keys);
  }

  /**
   * Renders `numbers` in order, PAGES_AT_ONCE at a time, until the slice is over; true when pages
   * are left. A failure stops new pages; those in flight are waited for before it is thrown, so
   * the PDF is never closed under them.
   */
  async function renderPages(
    document: repo.DocumentRow,
    { pdf, budget }: { pdf: OpenedPdf; budget: RenditionBudget },
    numbers: readonly number[],
    job: Turns,
  ): Promise<boolean> {
    const started = clock();
    const sliceOver = async () => {
      const elapsed = clock() - started;
      return job.stopping() || elapsed > SLICE_MS || (elapsed > TURN_MS && (await job.othersWaiting()));
    };
    const inFlight = new Set<Promise<void>>();
    let failure: { error: unknown } | undefined;
    let next = 0;
    try {
      while (next < numbers.length && !failure && !(await sliceOver())) {
        const drawing: Promise<void> = renderPage(document, pdf, numbers[next++]!, budget)
          .catch((error: unknown) => {
            // A page past its limit ends the renderer under the other page in flight: the limit is the cause.
            if (!failure || (error instanceof PdfPageTimeoutError && failure.error instanceof PdfRendererStoppedError)) failure = { error };
          })
          .finally(() => inFlight.delete(drawing));
        inFlight.add(drawing);
        if (inFlight.size >= PAGES_AT_ONCE) await Promise.race(inFlight);
      }
    } finally {
      // Also when asking whether others wait failed: the pages in flight still use the PDF.
      await Promise.all(inFlight);
    }
    if (failure) throw failure.error;
    return next < numbers.length;
  }

  /** One slice of the work; true when the rest is queued. */
  async function renderSlice(documentId: number, job: Turns): Promise<boolean> {
    const document = await repo.findDocument(db, documentId);
    if (!document || document.status !== 'processing') return false;
    const link = await links.findForVisitor(document.link_id);
    // A newer version was uploaded before this one was ready: nobody will see it.
    if (!link || link.version !== document.version) {
      const keys = await repo.findBlobKeysOfDocuments(db, [document.id]);
      await repo.deleteDocuments(db, [document.id]);
      await deleteBlobs(keys);
      return false;
    }
    let opened: { pdf: OpenedPdf; budget: RenditionBudget };
    try {
      opened = await open(document, link, job.signal);
    } catch (error) {
      if (!(error instanceof UnrenderableError)) throw error;
      await fail(document, error.message);
      return false;
    }
    const { pdf } = opened;
    try {
      if (document.page_count !== pdf.pageCount) await repo.updateDocument(db, document.id, { page_count: pdf.pageCount }, clock());
      if (pdf.pageCount > maxPages) {
        await fail(document, tooManyPages(pdf.pageCount, maxPages));
        return false;
      }
      const rendered = await repo.renderedPageNumbers(db, document.id);
      const missing = Array.from({ length: pdf.pageCount }, (_, index) => index + 1).filter((number) => !rendered.has(number));
      if (await renderPages(document, opened, missing, job)) {
        // Behind the other accounts' documents waiting, so a long one is drawn in turn with them.
        await jobs.enqueue(DOCUMENT_JOB, { documentId } satisfies RenderPayload, { fairKey: fairKeyOfAccount(link.account_id) });
        return true;
      }
    } catch (error) {
      // Drawing it again would take as long, or as much: the document cannot be shown as pages.
      if (!(error instanceof PdfPageTimeoutError || error instanceof UnrenderableError)) throw error;
      await fail(document, error.message);
      return false;
    } finally {
      await pdf.close();
    }
    await finish(document);
    return false;
  }

  const job: JobKind<RenderPayload> = {
    run: async ({ documentId }, running) => {
      try {
        await renderSlice(documentId, running);
      } catch (error) {
        // The same file would take as long again, holding a runner all the while: not retried.
        if (error instanceof ConversionError && error.reason === 'timeout')
          throw new PermanentJobError('Converting the file took too long', { cause: error });
        throw error;
      }
    },
    async onFailure(trx: Executor, { documentId }, failure) {
      if (failure.retry) return;
      const reason = failure.error instanceof PermanentJobError ? failure.error.message : 'The document could not be prepared';
      await repo.updateDocument(trx, documentId, { status: 'failed', error: reason }, clock());
    },
    maxAttempts: 3,
    backoffMs: (attempt) => 5_000 * 4 ** (attempt - 1),
    concurrency: deps.concurrency,
    // About a conversion, or one slice of pages: an account's next document waits that long of turns.
    turnMs: SLICE_MS,
    // A run is one conversion (bounded by its timeout) and one slice of pages, whose last page
    // (drawn twice: the page and its thumbnail) may start just before the slice ends.
    leaseMs: deps.convertTimeoutMs + SLICE_MS + 2 * deps.pageTimeoutMs + 60_000,
  };

  const drawingAhead = new Map<string, Promise<void>>();

  async function drawAhead(documentId: number, number: number): Promise<void> {
    const document = await repo.findDocument(db, documentId);
    if (document?.status !== 'processing' || (document.page_count !== null && number > document.page_count)) return;
    const link = await links.findForVisitor(document.link_id);
    if (!link || link.version !== document.version) return;
    if (link.mime !== 'application/pdf' && document.pdf_blob_key === null) return;
    const opened = await open(document, link).catch(() => undefined);
    if (!opened) return;
    const { pdf, budget } = opened;
    try {
      // Past the limit the job fails the document.
      if (number > pdf.pageCount || pdf.pageCount > maxPages) return;
      if (document.page_count === null) await repo.updateDocument(db, document.id, { page_count: pdf.pageCount }, clock());
      await renderPage(document, pdf, number, budget);
    } catch (error) {
      // The job fails the document (a page past its limit, its images past their budget) or draws
      // the page again (the thread ended under it).
      if (!(error instanceof PdfPageTimeoutError || error instanceof PdfRendererStoppedError || error instanceof UnrenderableError)) throw error;
    } finally {
      await pdf.close();
    }
  }

  /** The documents' blobs, for the orphan sweep: `documents/<link id>/…`. */
  const blobOwner: BlobOwner = {
    prefix: BLOB_PREFIX,
    async storedKeys(linkIds) {
      return new Set(await repo.findBlobKeysOfDocuments(db, await repo.findDocumentIdsOfLinks(db, linkIds)));
    },
  };

  return {
    job,
    blobOwner,

    /** Queues the rendering of a paged file's version, in the transaction that stores it. */
    async queue(trx: Executor, link: Pick<LinkRow, 'id' | 'account_id' | 'version' | 'mime' | 'name' | 'kind'>): Promise<void> {
      if (!isPaged(link)) return;
      const { id, created } = await repo.insertDocument(trx, { accountId: link.account_id, linkId: link.id, version: link.version, now: clock() });
      if (created) {
        await jobs.enqueue(DOCUMENT_JOB, { documentId: id } satisfies RenderPayload, { executor: trx, fairKey: fairKeyOfAccount(link.account_id) });
      }
    },

    /**
     * Draws one page of a document still being prepared, ahead of its turn: a visitor is waiting
     * for it while the job is busy elsewhere. Only once its PDF exists (an upload, or converted
     * already): a conversion stays the job's. Visitors asking for the same page share one drawing.
     */
    renderAhead(documentId: number, number: number): Promise<void> {
      return once(drawingAhead, `${documentId}:${number}`, () => drawingAheadAtOnce(() => drawAhead(documentId, number)));
    },

    /**
     * Waits for the pages being drawn ahead for visitors: they are not jobs, and a request whose
     * connection closed keeps drawing, then writes its blobs and rows. Called before storage and
     * the database close.
     */
    async stop(): Promise<void> {
      await Promise.allSettled(drawingAhead.values());
    },
  };
}

export type Renditions = ReturnType<typeof createRenditions>;
