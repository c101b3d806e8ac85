/**
 * What visitors and owners see of a paged document: the list of its pages and each page's image
 * or thumbnail. A watermarked visitor only ever receives images stamped for their visit (made
 * here with sharp, kept for the visit in a bounded cache); a preview shows pages 1..N only.
 */
import { availableParallelism } from 'node:os';
import type { Registry } from 'prom-client';
import { createConcurrencyLimit, createKeyedConcurrencyLimit, once } from '../../core/concurrency.js';
import { conflict, notFound, serviceUnavailable } from '../../core/errors.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import type { BlobStore } from '../../infra/storage/index.js';
import type { FileReader } from '../files/file-reader.js';
import type { DocumentStatus, DocumentSummary, LinkDocuments, LinksService } from '../links/links.service.js';
import type { Visitor, VisitorSession } from '../visits/visitor.js';
import type { VisitsService } from '../visits/visits.service.js';
import * as repo from './documents.repo.js';
import { createStampMetrics } from './stamp-metrics.js';
import { isPaged, renditionsPrefixOf, type Renditions } from './renditions.js';
import { isWatermarked, stampFor } from './document-view.js';
import { drawStampSprite, releaseBuffer, stampPageImage, type StampSprite } from './watermark/index.js';

export type PageImageKind = 'page' | 'thumbnail';

export interface PageEntry {
  number: number;
  width: number;
  height: number;
  /** the page's text for screen readers; null when the pages are watermarked */
  text: string | null;
}

/** The pages a visitor may see so far (`pages.json` of the viewer). */
export interface PageManifest {
  status: DocumentStatus;
  error: string | null;
  /** the version shown, so page URLs change when a replacement is ready */
  version: number | null;
  /**
   * the view whose mark the images carry when the link watermarks, named in their URLs so that a
   * browser never shows one visit's stamped pages, from its cache, in another
   */
  stampedFor: string | null;
  totalPages: number | null;
  visiblePages: number | null;
  pages: PageEntry[];
}

export interface PageImage {
  bytes: Buffer;
  /** WebP as rendered; JPEG when stamped for the visit */
  mime: 'image/webp' | 'image/jpeg';
}

/** Stamped images kept for their visit: a visitor paging back and forth is stamped once per page. */
const STAMPED_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Stamps made at once per process: each holds a decoded 1600 px page (about 10 MB), so twenty
 * visitors at once would otherwise hold hundreds of MB; more than the cores would not finish
 * sooner anyway.
 */
const CONCURRENT_STAMPS = Math.max(2, availableParallelism());
/**
 * Stamps that may wait for a place: a waiting one holds nothing yet (its page is read once its
 * turn comes), but past this many a visitor would wait longer than a retry takes.
 */
const WAITING_STAMPS = 48;
/** Stamps of one view at once: a visitor asking for every page at the same time waits behind their own requests. */
const STAMPS_PER_VIEW = 2;
/** Each visit's mark, drawn once per page size (the inked pixels of one copy: tens of KB). */
const SPRITE_CACHE_BYTES = 16 * 1024 * 1024;
/** What a view's stamped images are cached under: its short id alone could repeat in another visit, which would then get its stamps. */
const viewKeyOf = (session: VisitorSession) => `${session.visitId}:${session.viewId}`;

/** Least recently used entries go first once their bytes pass `limitBytes`. */
function createByteCache<T>(limitBytes: number, sizeOf: (value: T) => number) {
  const entries = new Map<string, T>();
  let bytes = 0;
  return {
    get(key: string): T | undefined {
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        entries.set(key, hit);
      }
      return hit;
    },
    set(key: string, value: T): void {
      entries.set(key, value);
      bytes += sizeOf(value);
      for (const [oldest, old] of entries) {
        if (bytes <= limitBytes) break;
        entries.delete(oldest);
        bytes -= sizeOf(old);
      }
    },
  };
}

/** The version visitors see: the newest one ready, else the current one while it is prepared. */
function shownDocument(documents: repo.DocumentRow[], link: LinkRow): repo.DocumentRow | undefined {
  return documents.find((document) => document.status === 'ready') ?? documents.find((document) => document.version === link.version);
}

const visibleCount = (document: repo.DocumentRow, link: LinkRow) =>
  document.page_count === null ? null : Math.min(document.page_count, link.preview_pages ?? Number.POSITIVE_INFINITY);

export function createPagesService(deps: {
  db: Db;
  reader: Pick<FileReader, 'read'>;
  visits: Pick<VisitsService, 'requireSession'>;
  links: Pick<LinksService, 'ownLink'>;
  renditions: Pick<Renditions, 'queue' | 'renderAhead'>;
  /** Where the page_stamps_* metrics go: the registry /metrics serves (none: not counted). */
  registry?: Registry;
}) {
  const { db, reader, visits, links, renditions } = deps;
  const metrics = deps.registry && createStampMetrics(deps.registry);
  const stamped = createByteCache<Buffer>(STAMPED_CACHE_BYTES, (image) => image.length);
  const sprites = createByteCache<StampSprite>(SPRITE_CACHE_BYTES, (sprite) => sprite.bytes);
  /** The marks being drawn, so that the pages asked for meanwhile wait for the same drawing. */
  const drawing = new Map<string, Promise<StampSprite>>();
  const stamping = createConcurrencyLimit(CONCURRENT_STAMPS, {
    maxWaiting: WAITING_STAMPS,
    full: () => {
      metrics?.refused.inc();
      return serviceUnavailable('Many pages are being prepared right now; this one will be ready in a moment', 2);
    },
  });
  const stampingOfView = createKeyedConcurrencyLimit(STAMPS_PER_VIEW);
  /** The stamps being made, so that the same page asked for again meanwhile waits for the same one. */
  const making = new Map<string, Promise<Buffer>>();

  /**
   * The visit's mark for pages of this size, drawn once. It names the time the view began: every
   * page and thumbnail of a visit alike, as the visit's row in the link's analytics.
   */
  function spriteFor(session: VisitorSession, width: number, height: number): Promise<StampSprite> {
    const key = `${viewKeyOf(session)}:${width}x${height}`;
    const drawn = sprites.get(key);
    if (drawn) return Promise.resolve(drawn);
    return once(drawing, key, async () => {
      const sprite = await drawStampSprite(stampFor(session, session.startedAt), width, height);
      sprites.set(key, sprite);
      return sprite;
    });
  }

  /** `image` with the visit's mark in its pixels. */
  async function stamp(image: Buffer, session: VisitorSession): Promise<Buffer> {
    const { default: sharp } = await import('sharp');
    const { width, height } = await sharp(image).metadata();
    return stampPageImage(image, await spriteFor(session, width, height));
  }

  /**
   * Page `number` (or its thumbnail) with the visit's mark, made once per view and kept. A view's
   * stamps are made two at a time, each in its turn among all visits' (the page is read only then).
   */
  async function stampedImage(document: repo.DocumentRow, number: number, kind: PageImageKind, session: VisitorSession): Promise<Buffer> {
    const viewKey = viewKeyOf(session);
    const key = `${viewKey}:${document.id}:${number}:${kind}`;
    const make = async (page: repo.PageRow) => {
      const clean = await readStored(page, kind, true);
      try {
        const image = await stamp(clean, session);
        metrics?.made.inc();
        stamped.set(key, image);
        return image;
      } finally {
        releaseBuffer(clean);
      }
    };
    // A page not drawn yet is drawn before its stamp takes a place: drawing it must not hold one.
    return (
      stamped.get(key) ??
      once(making, key, async () => {
        const page = await pageRow(document, number);
        return stampingOfView(viewKey, () => stamping(() => make(page)));
      })
    );
  }

  /** The link's shown document; a paged file stored before documents existed is queued on first sight. */
  async function documentOf(link: LinkRow): Promise<repo.DocumentRow | undefined> {
    if (!isPaged(link)) return undefined;
    let documents = await repo.findDocumentsOfLink(db, link.id);
    if (!documents.some((document) => document.version === link.version) && link.blob_purged_at === null) {
      await db.transaction().execute((trx) => renditions.queue(trx, link));
      documents = await repo.findDocumentsOfLink(db, link.id);
    }
    return shownDocument(documents, link);
  }

  /** Page `number`'s row, drawn now when the job has not reached it yet. */
  async function pageRow(document: repo.DocumentRow, number: number): Promise<repo.PageRow> {
    let page = await repo.findPage(db, document.id, number);
    if (!page && document.status === 'processing') {
      await renditions.renderAhead(document.id, number);
      page = await repo.findPage(db, document.id, number);
    }
    if (!page) throw notFound(`Page ${number}`);
    return page;
  }

  /** A page's stored image; `forStamp`: its stamp base when it has one. */
  function readStored(page: repo.PageRow, kind: PageImageKind, forStamp = false): Promise<Buffer> {
    const stored =
      kind === 'thumbnail'
        ? { blobKey: page.thumbnail_key, wrappedKey: page.thumbnail_wrapped_key, size: page.thumbnail_size }
        : forStamp && page.stamp_base_key && page.stamp_base_wrapped_key && page.stamp_base_size !== null
          ? { blobKey: page.stamp_base_key, wrappedKey: page.stamp_base_wrapped_key, size: page.stamp_base_size }
          : { blobKey: page.image_key, wrappedKey: page.image_wrapped_key, size: page.image_size };
    return reader.read(stored);
  }

  /** Page `number`'s clean image (or thumbnail), drawn first if need be. */
  const readImage = async (document: repo.DocumentRow, number: number, kind: PageImageKind) => readStored(await pageRow(document, number), kind);

  return {
    /** How many pages visitors of `link` are shown: its document's pages up to a preview's cut, once counted (until then, page 1); 1 for a file without pages. */
    async shownPageCount(link: LinkRow): Promise<number> {
      if (!isPaged(link)) return 1;
      const document = shownDocument(await repo.findDocumentsOfLink(db, link.id), link);
      return (document && visibleCount(document, link)) ?? 1;
    },

    /** The pages a visitor holding a session of `linkId` may see, as far as they are ready. */
    async manifestFor(linkId: string, visitor: Visitor): Promise<PageManifest> {
      const { link, room, session } = await visits.requireSession(linkId, visitor);
      let document = await documentOf(link);
      if (!document) return { status: 'none', error: null, version: null, stampedFor: null, totalPages: null, visiblePages: null, pages: [] };
      // Nothing drawn yet while the job is busy with another document: page 1 is drawn now.
      if (document.status === 'processing' && !(await repo.hasPage(db, document.id, 1))) {
        await renditions.renderAhead(document.id, 1);
        document = (await repo.findDocument(db, document.id)) ?? document;
      }
      const visible = visibleCount(document, link);
      const watermark = isWatermarked(link, room);
      const pages = visible === null ? [] : await repo.listPages(db, document.id, visible);
      return {
        status: document.status as DocumentStatus,
        error: document.error,
        version: document.version,
        stampedFor: watermark ? session.viewId : null,
        totalPages: document.page_count,
        visiblePages: visible,
        pages: pages.map((page) => ({ number: page.page, width: page.width, height: page.height, text: watermark ? null : page.text })),
      };
    },

    /** Page `number` (or its thumbnail) for a visitor: stamped for their visit when the link watermarks; 404 past a preview. */
    async pageImageFor(linkId: string, visitor: Visitor, number: number, kind: PageImageKind, version?: number): Promise<PageImage> {
      const { link, room, session } = await visits.requireSession(linkId, visitor);
      const document = await documentOf(link);
      // A viewer opened on a version since replaced asks for its pages: another version's would be mixed in.
      if (document && version !== undefined && document.version !== version) {
        throw conflict('This document was replaced while it was open: reload the page to read the new version');
      }
      const visible = document && visibleCount(document, link);
      if (!document || visible === null || visible === undefined || number > visible) throw notFound(`Page ${number}`);
      if (!isWatermarked(link, room)) return { bytes: await readImage(document, number, kind), mime: 'image/webp' };
      return { bytes: await stampedImage(document, number, kind, session), mime: 'image/jpeg' };
    },

    /**
     * Page 1 of the shown version when it is drawn, known while the visitor's page is made (the page
     * preloads that image): the version and view its URL names, as in the manifest. For a
     * watermarked visit the mark for page 1's size starts being drawn now, while the browser loads
     * the viewer: the first page then waits only for its stamp.
     */
    async openingPage(linkId: string, visitor: Visitor): Promise<Pick<PageManifest, 'version' | 'stampedFor'> | undefined> {
      const { link, room, session } = await visits.requireSession(linkId, visitor);
      const document = await documentOf(link);
      const [first] = document ? await repo.listPages(db, document.id, 1) : [];
      if (!document || !first) return undefined;
      if (!isWatermarked(link, room)) return { version: document.version, stampedFor: null };
      // Not awaited; a failure is met again, and answered, when the page itself is stamped.
      spriteFor(session, first.width, first.height).catch(() => {});
      return { version: document.version, stampedFor: session.viewId };
    },

    /** A page's thumbnail for the owner (dashboard, per-page analytics): the clean image. */
    async thumbnailForOwner(accountId: number, linkId: string, number: number): Promise<PageImage> {
      const link = await links.ownLink(accountId, linkId, { live: false });
      const document = await documentOf(link);
      if (!document) throw notFound(`Page ${number}`);
      return { bytes: await readImage(document, number, 'thumbnail'), mime: 'image/webp' };
    },
  };
}

export type PagesService = ReturnType<typeof createPagesService>;

/** `document` of each link object (how far its current version's pages are), and the renditions' removal with the link's file. */
export function createLinkDocuments(deps: { db: Db; blobs: Pick<BlobStore, 'deletePrefix'> }): LinkDocuments {
  const { db, blobs } = deps;
  return {
    // A deleted link's rows went with it; an expired link's stay until now. The blobs go after the rows, as everywhere.
    async discard(linkId) {
      await repo.deleteDocuments(db, await repo.findDocumentIdsOfLinks(db, [linkId]));
      await blobs.deletePrefix(renditionsPrefixOf(linkId));
    },

    async summariesOf(linkRows) {
      const rows = await repo.findStatusesOfLinks(
        db,
        linkRows.filter(isPaged).map((link) => link.id),
      );
      const versions = new Map(linkRows.map((link) => [link.id, link.version]));
      const currents = rows.filter((row) => versions.get(row.link_id) === row.version);
      // Pages are counted only while they are being drawn (or stopped being): a ready document has them all.
      const counted = await repo.countRenderedPages(
        db,
        currents.filter((row) => row.status !== 'ready').map((row) => row.id),
      );
      return new Map<string, DocumentSummary>(
        currents.map((row) => [
          row.link_id,
          {
            status: row.status as DocumentStatus,
            pages: row.page_count,
            rendered: row.status === 'ready' ? row.page_count : (counted.get(row.id) ?? 0),
            error: row.error,
          },
        ]),
      );
    },
  };
}
