/**
 * Cutting a PDF to its first pages so that what is cut is really gone. pdf-lib's
 * removePage only unlinks a page from the page tree; `save` still writes every object it
 * parsed, so the later pages' content would ship inside the "preview". Hence the sweep:
 * keep what is reachable from the trailer, never through a removed page or annotation, once
 * each kept page holds only the resources it draws (`page-resources.ts`).
 */
import { PDFArray, PDFDict, PDFName, PDFNull, PDFRef, PDFStream, type PDFDocument, type PDFObject } from 'pdf-lib';
import { keepOnlyUsedResources } from './page-resources.js';

/**
 * What a preview's catalog keeps: what renders the kept pages. The rest describes or
 * carries the whole document and goes: outlines and named destinations (titles of cut
 * sections), the structure tree (alt text of cut pages), /Names and /AF (attachments,
 * scripts), /AcroForm (values of fields on cut pages), /PieceInfo (an editor's private
 * copy of the whole file). Kept pages still draw their widgets from appearance streams.
 */
const KEPT_CATALOG_ENTRIES = new Set(
  [
    ...['Type', 'Version', 'Extensions', 'Pages', 'PageLabels', 'PageLayout', 'PageMode'],
    ...['ViewerPreferences', 'Lang', 'Metadata', 'OCProperties', 'OutputIntents'],
  ].map((key) => PDFName.of(key)),
);

const PIECE_INFO = PDFName.of('PieceInfo');

/** Arrays under these keys list objects one by one: a cut entry is removed, not nulled. */
const LIST_KEYS = new Set(['Kids', 'Annots'].map((key) => PDFName.of(key)));

export function cutToFirstPages(doc: PDFDocument, keep: number): void {
  const pages = doc.getPages();
  if (keep >= pages.length) return;

  const keptAnnots = new Set<PDFRef>();
  for (const page of pages.slice(0, keep)) for (const ref of refsIn(page.node.Annots())) keptAnnots.add(ref);
  const severed = new Set<PDFRef>();
  for (const page of pages.slice(keep)) {
    severed.add(page.ref);
    for (const ref of refsIn(page.node.Annots())) if (!keptAnnots.has(ref)) severed.add(ref);
  }

  for (let index = pages.length - 1; index >= keep; index--) doc.removePage(index);
  for (const key of doc.catalog.keys()) if (!KEPT_CATALOG_ENTRIES.has(key)) doc.catalog.delete(key);
  for (const page of pages.slice(0, keep)) page.node.delete(PIECE_INFO);
  keepOnlyUsedResources(pages.slice(0, keep));
  dropUnreachableObjects(doc, severed);
}

function refsIn(array: PDFArray | undefined): PDFRef[] {
  if (!array) return [];
  const refs: PDFRef[] = [];
  for (let index = 0; index < array.size(); index++) {
    const item = array.get(index);
    if (item instanceof PDFRef) refs.push(item);
  }
  return refs;
}

/**
 * Marks every object reachable from the trailer, cutting references to `severed` objects
 * on the way (a link to a cut page becomes a link to nothing), then deletes the rest.
 */
function dropUnreachableObjects(doc: PDFDocument, severed: Set<PDFRef>): void {
  const { context } = doc;
  const reached = new Set<PDFRef>();
  const pending: Array<[object: PDFObject, isList: boolean]> = [];

  const reach = (value: PDFObject, isList: boolean) => {
    if (!(value instanceof PDFRef)) {
      pending.push([value, isList]);
    } else if (!reached.has(value)) {
      reached.add(value);
      const target = context.lookup(value);
      if (target) pending.push([target, isList]);
    }
  };
  const visitDict = (dict: PDFDict) => {
    for (const [key, value] of dict.entries()) {
      if (value instanceof PDFRef && severed.has(value)) dict.set(key, PDFNull);
      else reach(value, LIST_KEYS.has(key));
    }
  };

  for (const root of [context.trailerInfo.Root, context.trailerInfo.Info]) if (root) reach(root, false);
  while (pending.length > 0) {
    const [object, isList] = pending.pop()!;
    if (object instanceof PDFDict) {
      visitDict(object);
    } else if (object instanceof PDFStream) {
      visitDict(object.dict);
    } else if (object instanceof PDFArray) {
      for (let index = object.size() - 1; index >= 0; index--) {
        const item = object.get(index);
        if (!(item instanceof PDFRef && severed.has(item))) reach(item, false);
        else if (isList) object.remove(index);
        else object.set(index, PDFNull);
      }
    }
  }

  for (const [ref] of context.enumerateIndirectObjects()) if (!reached.has(ref)) context.delete(ref);
}
