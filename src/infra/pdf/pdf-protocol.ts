/** The messages between pdf-renderer.ts and the PDFium thread (pdf-worker.ts). */

export type PdfRequest =
  | { id: number; op: 'open'; bytes: Uint8Array }
  | { id: number; op: 'render'; documentId: number; number: number; width: number }
  | { id: number; op: 'text'; documentId: number; number: number }
  | { id: number; op: 'close'; documentId: number };

/** Sent as the drawing of a page begins, so its time limit counts the drawing, not the wait behind other pages. */
export interface PdfDrawingStarted {
  id: number;
  started: true;
}

export type PdfResponse =
  | { id: number; ok: true; value: { documentId: number; pageCount: number } | { rgba: Uint8Array; width: number; height: number } | string | null }
  | { id: number; ok: false; message: string; openRefused?: 'password' | 'unreadable' };
