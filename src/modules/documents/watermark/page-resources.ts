/**
 * A page draws the resources its content names (`/Im3 Do`, `/F1 12 Tf`…), looked up in its
 * /Resources, which it may inherit from the page tree. Producers often share one dictionary
 * among all pages, so a kept page can reach every page's images and forms: cutting the pages
 * alone leaves the cut pages' drawings in the file. Each kept page gets a copy holding only
 * what its content names, as do the forms and tiling patterns it draws.
 */
import {
  PDFArray,
  PDFDict,
  PDFName,
  PDFRawStream,
  PDFRef,
  PDFStream,
  decodePDFRawStream,
  type PDFContext,
  type PDFObject,
  type PDFPage,
} from 'pdf-lib';

/** The resource kinds a content stream names entries of. */
const CATEGORIES = ['XObject', 'Pattern', 'Shading', 'Font', 'ExtGState', 'ColorSpace', 'Properties'].map((key) => PDFName.of(key));
const RESOURCES = PDFName.of('Resources');
const SUBTYPE = PDFName.of('Subtype');
const PATTERN_TYPE = PDFName.of('PatternType');
const FORM = PDFName.of('Form');
// A name token: a slash, then anything but white space and delimiters (PDF 32000-1, 7.3.5).
const NAME_TOKEN = /\/([^\s/[\]<>(){}%]*)/g;

/**
 * Gives each page its own /Resources holding only what its content names. A page whose content
 * cannot be read keeps what it had, and so does the page tree.
 */
export function keepOnlyUsedResources(pages: readonly PDFPage[]): void {
  let complete = true;
  for (const page of pages) {
    const resources = page.node.Resources();
    if (!resources) continue;
    const content = streamsOf(page.node.context, page.node.Contents());
    const pruned = content && prunedResources(page.node.context, resources, content, new Set());
    if (pruned) page.node.set(RESOURCES, pruned);
    else complete = false;
  }
  // Every kept page now carries its own; what the page tree held for all of them goes.
  if (!complete) return;
  for (const page of pages) page.node.ascend((node) => node !== page.node && node.delete(RESOURCES));
}

/**
 * A copy of `resources` with, in each kind, only the entries `content` names. A form or tiling
 * pattern without resources of its own draws from these, so what it names counts too; one with
 * its own has them pruned against its content. Undefined when a stream cannot be decoded.
 */
function prunedResources(context: PDFContext, resources: PDFDict, content: readonly PDFStream[], visiting: Set<PDFStream>): PDFDict | undefined {
  const named = namesIn(content);
  if (!named) return undefined;
  const kinds = CATEGORIES.map((category) => [category, context.lookupMaybe(resources.get(category), PDFDict)] as const);
  const walked = new Set<PDFStream>();
  for (let grew = true; grew;) {
    grew = false;
    for (const [, entries] of kinds) {
      for (const [key, value] of entries?.entries() ?? []) {
        const drawing = drawingOf(context, value);
        if (!named.has(key.decodeText()) || !drawing || walked.has(drawing) || ownResources(context, drawing)) continue;
        walked.add(drawing);
        const inner = namesIn([drawing]);
        if (!inner) return undefined;
        for (const name of inner) {
          if (named.has(name)) continue;
          named.add(name);
          grew = true;
        }
      }
    }
  }

  const copy = resources.clone(context);
  for (const [category, entries] of kinds) {
    if (!entries) continue;
    const kept = context.obj({});
    for (const [key, value] of entries.entries()) {
      if (!named.has(key.decodeText())) continue;
      const drawing = drawingOf(context, value);
      const own = drawing && ownResources(context, drawing);
      if (drawing && own && !visiting.has(drawing)) {
        visiting.add(drawing);
        const pruned = prunedResources(context, own, [drawing], visiting);
        if (!pruned) return undefined;
        drawing.dict.set(RESOURCES, pruned);
      }
      kept.set(key, value);
    }
    copy.set(category, kept);
  }
  return copy;
}

/** A form XObject or a tiling pattern: streams that draw, naming resources of their own. */
function drawingOf(context: PDFContext, value: PDFObject): PDFStream | undefined {
  const target = context.lookup(value);
  if (!(target instanceof PDFStream)) return undefined;
  const isForm = target.dict.get(SUBTYPE) === FORM;
  const isTiling = target.dict.get(PATTERN_TYPE)?.toString() === '1';
  return isForm || isTiling ? target : undefined;
}

const ownResources = (context: PDFContext, drawing: PDFStream) => context.lookupMaybe(drawing.dict.get(RESOURCES), PDFDict);

/** Every name token in the streams' decoded content, or undefined when one cannot be decoded. */
function namesIn(streams: readonly PDFStream[]): Set<string> | undefined {
  const names = new Set<string>();
  for (const stream of streams) {
    const bytes = decoded(stream);
    if (!bytes) return undefined;
    for (const match of Buffer.from(bytes).toString('latin1').matchAll(NAME_TOKEN)) names.add(unescapeName(match[1]!));
  }
  return names;
}

function streamsOf(context: PDFContext, contents: PDFObject | undefined): PDFStream[] | undefined {
  if (contents === undefined) return [];
  if (contents instanceof PDFStream) return [contents];
  if (!(contents instanceof PDFArray)) return undefined;
  const streams: PDFStream[] = [];
  for (let index = 0; index < contents.size(); index++) {
    const item = contents.get(index);
    const stream = item instanceof PDFRef ? context.lookup(item) : item;
    if (!(stream instanceof PDFStream)) return undefined;
    streams.push(stream);
  }
  return streams;
}

function decoded(stream: PDFStream): Uint8Array | undefined {
  try {
    return stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents();
  } catch {
    return undefined;
  }
}

/** `#xx` in a name is the byte xx. */
function unescapeName(name: string): string {
  return name.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
