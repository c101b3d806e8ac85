/**
 * Pages of a PDF as pixels and text, with PDFium compiled to WebAssembly (`@hyzyla/pdfium`,
 * MIT; PDFium itself BSD-3/Apache-2). Chosen over poppler's pdftoppm and pdf.js on
 * @napi-rs/canvas by measuring on the fixtures (README, "Documents"): the fastest of the
 * three, nothing to install beside npm, and a licence that fits ours.
 *
 * PDFium runs in a thread of its own (pdf-worker.ts), shared by every open document: its drawing
 * is synchronous and would otherwise stop the server's requests for as long as a page takes. The
 * thread ends once no document has been open for a while, and PDFium's memory goes with it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PdfDrawingStarted, PdfRequest, PdfResponse } from './pdf-protocol.js';

/** Why a PDF cannot be opened; shown to the owner as the document's error. */
export class PdfOpenError extends Error {
  override name = 'PdfOpenError';

  constructor(readonly reason: 'password' | 'unreadable') {
    super(reason === 'password' ? 'This PDF is protected by a password' : 'This PDF could not be read (damaged or not a PDF)');
  }
}

/**
 * A page that took longer than its limit to draw. PDFium cannot be interrupted, so its thread is
 * ended: a PDF of a few hundred KB can ask for seconds of drawing per page.
 */
export class PdfPageTimeoutError extends Error {
  override name = 'PdfPageTimeoutError';

  constructor(
    readonly page: number,
    limitMs: number,
  ) {
    super(`Page ${page} took longer than ${limitMs / 1000} s to draw`);
  }
}

/** What other documents' calls meet when the thread ended under them (a page past its limit): drawing them again works. */
export class PdfRendererStoppedError extends Error {
  override name = 'PdfRendererStoppedError';

  constructor(options?: { cause?: unknown }) {
    super('The PDF renderer stopped', options);
  }
}

/** One rendered page: opaque RGBA pixels, `width` × `height`. */
export interface RenderedPage {
  rgba: Buffer;
  width: number;
  height: number;
}

export interface OpenedPdf {
  pageCount: number;
  /** Page `number` (1-based) drawn `width` pixels wide, its height in proportion; a page taller than 1600 × 3750 (6 MP) or 8000 px is drawn smaller, in proportion. */
  renderPage(number: number, width: number): Promise<RenderedPage>;
  /** The page's text, as PDFium extracts it (empty for a scanned page). */
  pageText(number: number): Promise<string>;
  close(): Promise<void>;
}

/** How long the thread outlives its last open document: a visitor's next page should not start PDFium again. */
const IDLE_MS = 30_000;
/** The longest a page may take to draw, unless `openPdf` is told otherwise: pages take tens of milliseconds. */
const DEFAULT_PAGE_TIMEOUT_MS = 30_000;
/** The worker's own file, beside this one: .ts when run from the sources (tests), .js when built. */
const WORKER_URL = new URL(`./pdf-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** A request as the caller writes it (the thread numbers it), each kind kept apart. */
type WithoutId<R> = R extends unknown ? Omit<R, 'id'> : never;
type Body = WithoutId<PdfRequest>;
/** The drawing must end within `ms` of its start, else the call fails with `error()` and the thread ends. */
type DrawLimit = { ms: number; error: () => Error };

interface PdfThread {
  call<T>(body: Body, limit?: DrawLimit): Promise<T>;
  opened(): void;
  closed(): void;
}

let current: PdfThread | undefined;
let nextId = 1;

function startThread(): PdfThread {
  const worker = new Worker(WORKER_URL);
  const pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void; limit?: DrawLimit; timer?: NodeJS.Timeout }>();
  let openDocuments = 0;
  let idle: NodeJS.Timeout | undefined;
  let stopped = false;
  // Only a call waiting for its answer keeps the process alive, not an idle thread.
  worker.unref();

  const thread: PdfThread = {
    call<T>(body: Body, limit?: DrawLimit): Promise<T> {
      if (stopped) return Promise.reject(new PdfRendererStoppedError());
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: never) => void, reject, limit });
        if (pending.size === 1) worker.ref();
        worker.postMessage({ ...body, id });
      });
    },
    opened() {
      openDocuments += 1;
      clearTimeout(idle);
    },
    closed() {
      openDocuments -= 1;
      if (openDocuments > 0) return;
      idle = setTimeout(() => {
        if (current === thread) current = undefined;
        void worker.terminate();
      }, IDLE_MS);
      idle.unref();
    },
  };

  const stop = (error: Error) => {
    stopped = true;
    if (current === thread) current = undefined;
    clearTimeout(idle);
    for (const waiting of pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    pending.clear();
  };

  worker.on('message', (response: PdfResponse | PdfDrawingStarted) => {
    const waiting = pending.get(response.id);
    if (!waiting) return;
    if ('started' in response) {
      const { limit } = waiting;
      if (limit)
        waiting.timer = setTimeout(() => {
          pending.delete(response.id);
          waiting.reject(limit.error());
          stop(new PdfRendererStoppedError());
          void worker.terminate();
        }, limit.ms);
      return;
    }
    clearTimeout(waiting.timer);
    pending.delete(response.id);
    if (pending.size === 0) worker.unref();
    if (response.ok) waiting.resolve(response.value as never);
    else waiting.reject(response.openRefused ? new PdfOpenError(response.openRefused) : new Error(response.message));
  });
  worker.on('error', (error) => stop(new PdfRendererStoppedError({ cause: error })));
  worker.on('exit', () => stop(new PdfRendererStoppedError()));
  return thread;
}

export async function openPdf(bytes: Uint8Array, options: { pageTimeoutMs?: number } = {}): Promise<OpenedPdf> {
  const pageTimeoutMs = options.pageTimeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
  const thread = (current ??= startThread());
  thread.opened();
  // Copied to the thread: the caller keeps its bytes (the converted PDF is stored after drawing starts).
  const { documentId, pageCount } = await thread.call<{ documentId: number; pageCount: number }>({ op: 'open', bytes }).catch((error: unknown) => {
    thread.closed();
    throw error;
  });
  let closed = false;
  return {
    pageCount,
    async renderPage(number, width) {
      const page = await thread.call<{ rgba: Uint8Array; width: number; height: number }>(
        { op: 'render', documentId, number, width },
        { ms: pageTimeoutMs, error: () => new PdfPageTimeoutError(number, pageTimeoutMs) },
      );
      return { rgba: Buffer.from(page.rgba.buffer, page.rgba.byteOffset, page.rgba.byteLength), width: page.width, height: page.height };
    },
    pageText: (number) => thread.call<string>({ op: 'text', documentId, number }),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await thread.call({ op: 'close', documentId });
      } catch {
        // A thread that stopped holds no document any more.
      } finally {
        thread.closed();
      }
    },
  };
}
