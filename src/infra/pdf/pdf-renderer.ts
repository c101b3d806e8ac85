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
import type { PdfRequest, PdfResponse } from './pdf-protocol.js';

/** Why a PDF cannot be opened; shown to the owner as the document's error. */
export class PdfOpenError extends Error {
  override name = 'PdfOpenError';

  constructor(readonly reason: 'password' | 'unreadable') {
    super(reason === 'password' ? 'This PDF is protected by a password' : 'This PDF could not be read (damaged or not a PDF)');
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
  /** Page `number` (1-based) drawn `width` pixels wide, its height in proportion. */
  renderPage(number: number, width: number): Promise<RenderedPage>;
  /** The page's text, as PDFium extracts it (empty for a scanned page). */
  pageText(number: number): Promise<string>;
  close(): Promise<void>;
}

/** How long the thread outlives its last open document: a visitor's next page should not start PDFium again. */
const IDLE_MS = 30_000;
/** The worker's own file, beside this one: .ts when run from the sources (tests), .js when built. */
const WORKER_URL = new URL(`./pdf-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

type Body = PdfRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

interface PdfThread {
  call<T>(body: Body): Promise<T>;
  opened(): void;
  closed(): void;
}

let current: PdfThread | undefined;
let nextId = 1;

function startThread(): PdfThread {
  const worker = new Worker(WORKER_URL);
  const pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>();
  let openDocuments = 0;
  let idle: NodeJS.Timeout | undefined;
  // Only a call waiting for its answer keeps the process alive, not an idle thread.
  worker.unref();

  const thread: PdfThread = {
    call<T>(body: Body): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: never) => void, reject });
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

  worker.on('message', (response: PdfResponse) => {
    const waiting = pending.get(response.id);
    if (!waiting) return;
    pending.delete(response.id);
    if (pending.size === 0) worker.unref();
    if (response.ok) waiting.resolve(response.value as never);
    else waiting.reject(response.openRefused ? new PdfOpenError(response.openRefused) : new Error(response.message));
  });
  const stopped = (error: Error) => {
    if (current === thread) current = undefined;
    clearTimeout(idle);
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  worker.on('error', stopped);
  worker.on('exit', (code) => stopped(new Error(`The PDF renderer stopped (exit code ${code})`)));
  return thread;
}

export async function openPdf(bytes: Uint8Array): Promise<OpenedPdf> {
  const thread = (current ??= startThread());
  thread.opened();
  let documentId: number;
  let pageCount: number;
  try {
    // Copied to the thread: the caller keeps its bytes (the converted PDF is stored after drawing starts).
    ({ documentId, pageCount } = await thread.call<{ documentId: number; pageCount: number }>({ op: 'open', bytes }));
  } catch (error) {
    thread.closed();
    throw error;
  }
  let closed = false;
  return {
    pageCount,
    async renderPage(number, width) {
      const page = await thread.call<{ rgba: Uint8Array; width: number; height: number }>({ op: 'render', documentId, number, width });
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
