/**
 * The thread PDFium runs in (started by pdf-renderer.ts). Drawing a page is synchronous
 * WebAssembly: tens of milliseconds for a text page, seconds for a dense drawing. Here it holds up
 * only this thread, never the server's requests, and ending the thread hands PDFium's memory
 * (which WebAssembly never shrinks) back to the system.
 */
import { parentPort } from 'node:worker_threads';
import { PDFiumLibrary, type PDFiumDocument } from '@hyzyla/pdfium';
import type { PdfDrawingStarted, PdfRequest, PdfResponse } from './pdf-protocol.js';

/**
 * The most a page is drawn at, whatever its shape: a taller page than 1600 × 3750 is drawn
 * narrower, in proportion, so that a banner-shaped page asks neither for gigapixels nor, copied on
 * every page of a document, for gigabytes of images.
 */
const MAX_PIXELS = 6_000_000;
const MAX_SIDE = 8000;

/** The size page `originalWidth` × `originalHeight` (points) is drawn at, asked for `width` pixels wide. */
function drawnSize(originalWidth: number, originalHeight: number, width: number) {
  const height = (originalHeight * width) / Math.max(originalWidth, 1);
  const scale = Math.min(1, Math.sqrt(MAX_PIXELS / Math.max(width * height, 1)), MAX_SIDE / Math.max(height, 1));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

const port = parentPort!;
const library = PDFiumLibrary.init();
const documents = new Map<number, PDFiumDocument>();

function pageOf(documentId: number, number: number) {
  const document = documents.get(documentId);
  if (!document) throw new Error(`no open document ${documentId}`);
  const pageCount = document.getPageCount();
  if (!Number.isInteger(number) || number < 1 || number > pageCount) throw new RangeError(`no page ${number} of ${pageCount}`);
  return document.getPage(number - 1);
}

async function answer(request: PdfRequest): Promise<PdfResponse> {
  switch (request.op) {
    case 'open': {
      let document: PDFiumDocument;
      try {
        document = await (await library).loadDocument(request.bytes);
      } catch (error) {
        const message = error instanceof Error ? error.message : '';
        return { id: request.id, ok: false, openRefused: /password|security/i.test(message) ? 'password' : 'unreadable', message };
      }
      documents.set(request.id, document);
      return { id: request.id, ok: true, value: { documentId: request.id, pageCount: document.getPageCount() } };
    }
    case 'render': {
      const page = pageOf(request.documentId, request.number);
      const { originalWidth, originalHeight } = page.getOriginalSize();
      const size = drawnSize(originalWidth, originalHeight, request.width);
      port.postMessage({ id: request.id, started: true } satisfies PdfDrawingStarted);
      // The library draws on an opaque white fill with PDFium's reverse byte order: RGBA, as image libraries read it.
      const image = await page.render({ ...size, render: 'bitmap' });
      return { id: request.id, ok: true, value: { rgba: image.data, width: image.width, height: image.height } };
    }
    case 'text':
      return { id: request.id, ok: true, value: pageOf(request.documentId, request.number).getText() };
    case 'close':
      documents.get(request.documentId)?.destroy();
      documents.delete(request.documentId);
      return { id: request.id, ok: true, value: null };
  }
}

/** A page's pixels are moved to the server's thread, not copied (they are a copy out of PDFium's memory already). */
function movable(response: PdfResponse): ArrayBuffer[] {
  if (!response.ok || response.value === null || typeof response.value !== 'object' || !('rgba' in response.value)) return [];
  const { buffer } = response.value.rgba;
  return buffer instanceof ArrayBuffer && response.value.rgba.byteLength === buffer.byteLength ? [buffer] : [];
}

port.on('message', (request: PdfRequest) => {
  answer(request).then(
    (response) => port.postMessage(response, movable(response)),
    (error: unknown) => {
      port.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies PdfResponse);
      // A trap inside PDFium (its memory exhausted, an abort) leaves it in no state to draw again:
      // the thread ends, and the next document starts a new one.
      if (error instanceof Error && error.name === 'RuntimeError') process.exit(1);
    },
  );
});
