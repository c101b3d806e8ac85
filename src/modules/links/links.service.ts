import type { Clock, CommitsWith, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { IdempotencyService } from '../idempotency/idempotency.service.js';
import type { LinkRow, NewLink } from '../../db/types.js';
import { recordName } from '../../core/text.js';
import { badRequest, gone, notFound, payloadTooLarge, unprocessable } from '../../core/errors.js';
import { sizeLabel } from '../../core/sizes.js';
import { isoTime } from '../../core/timestamps.js';
import type { AccountRecords } from '../accounts/account-records.js';
import { hashPassword } from '../../infra/crypto/passwords.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import type { BlobStore } from '../../infra/storage/index.js';
import { changedFields, type AuditLog, type ChangeSource } from '../audit/audit.service.js';
import type { StoredFile } from '../files/file-intake.js';
import { Readable } from 'node:stream';
import { assertAllowedFileName, storedFileName } from '../files/content-checks.js';
import { reencodeImage } from '../files/images.js';
import {
  assertConsistent,
  assertPaymentsPossible,
  EXPIRATIONS,
  expiryOf,
  NEVER_EXPIRES,
  normalizeBookingUrl,
  normalizeDomains,
  normalizeEmails,
  normalizeExpiresAt,
  normalizePreviewText,
  PREVIEW_DESCRIPTION_MAX,
  PREVIEW_TITLE_MAX,
  type ExpiresAt,
  type Expiration,
  type LinkSettings,
  type PaymentsPolicy,
  type AgreementPolicy,
} from './link-settings.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import * as repo from './links.repo.js';

export const ROOM_MIME = 'application/vnd.linkvault.room';

/** The answer to an upload: the new link and where visitors open it. */
export interface CreatedLink {
  id: string;
  viewer_url: string;
}

/** The answer to a replacement: the link's version now. */
export interface ReplacedFile {
  ok: true;
  version: number;
}
const PURGE_BATCH = 100;

export const isExpired = (link: Pick<LinkRow, 'expires_at'>, now: number) => link.expires_at <= now;
/** Whether a room's or a portal's list shows the link to visitors: switched on and not expired. */
export const isListedForVisitors = (link: Pick<LinkRow, 'is_active' | 'expires_at'>, now: number) => link.is_active === 1 && !isExpired(link, now);
/**
 * The name a data room's pages give one of its links. Never the link's own id: that opens the
 * link on its own, past the room's gates (password, agreement, watermark…), so a room visitor
 * must not learn it. A hash, since the room's id is no secret to them.
 */
export const roomChildName = (roomId: string, linkId: string) => sha256Hex(`room child\n${roomId}\n${linkId}`).slice(0, 32);
/** Whether `name` in a room's path names this link of it (its room name, or its id in URLs made before the names). */
export const namesRoomChild = (roomId: string, child: Pick<LinkRow, 'id'>, name: string) =>
  child.id === name || roomChildName(roomId, child.id) === name;
/** The viewer page of a link: on its own, or opened inside data room `roomId`. */
export const viewerPathOf = (linkId: string, roomId?: string) => (roomId ? `/v/${roomId}/d/${roomChildName(roomId, linkId)}` : `/v/${linkId}`);
export const blobPrefixOf = (linkId: string) => `links/${linkId}/`;
/** Random suffix: two replacements racing for the same version never write the same blob. */
export const blobKeyOf = (linkId: string, version: number) => `${blobPrefixOf(linkId)}v${version}-${randomBase62(8)}`;

const parseList = (json: string): string[] => JSON.parse(json) as string[];

/** The spec's Link object: exactly these fields. */
export function toLinkMetadata(link: LinkRow) {
  return {
    id: link.id,
    name: link.name,
    mime: link.mime,
    views: link.views,
    requires_password: link.password_hash !== null,
    has_watermark: link.has_watermark === 1,
  };
}

/** Every setting of a link as it stands, in the API's camelCase; the password only as whether there is one. */
export function settingsOf(link: LinkRow) {
  return {
    isActive: link.is_active === 1,
    expiresAt: link.expires_at >= NEVER_EXPIRES ? null : isoTime(link.expires_at),
    hasPassword: link.password_hash !== null,
    hasWatermark: link.has_watermark === 1,
    requiresApproval: link.requires_approval === 1,
    requiresOtp: link.requires_otp === 1,
    allowedEmails: parseList(link.allowed_emails),
    allowedDomains: parseList(link.allowed_domains),
    requireEmail: link.require_email === 1,
    allowDownload: link.allow_download === 1,
    notifyOnView: link.notify_on_view === 1,
    previewTitle: link.preview_title,
    previewDescription: link.preview_description,
    hasPreviewImage: link.preview_image_key !== null,
    agreementId: link.agreement_id,
    blockedEmails: parseList(link.blocked_emails),
    blockedDomains: parseList(link.blocked_domains),
    bookingUrl: link.booking_url,
    previewPages: link.preview_pages,
    viewSessionTtlSeconds: link.view_session_ttl,
    maxViews: link.max_views,
    requirePaymentToDownload: link.require_payment === 1,
    downloadPrice: link.download_price,
    downloadCurrency: link.download_currency ?? 'usd',
  };
}

export type LinkSettingsView = ReturnType<typeof settingsOf>;

/** A change to any subset of a link's settings and its name (`PATCH /api/links/{id}`); the password in clear, null to remove it. */
export type LinkChanges = Partial<Omit<LinkSettingsView, 'hasPassword' | 'expiresAt' | 'hasPreviewImage'>> & {
  name?: string;
  expiresAt?: ExpiresAt;
  password?: string | null;
};

const roomName = (typed: string) => recordName(typed, 'A data room name');

/** The name a link is renamed to: a file keeps the stored-name rules (no blocked extension: a download is saved under it). */
function renamed(link: LinkRow, name: string): string {
  if (link.kind === 'room') return roomName(name);
  const stored = storedFileName(name);
  assertAllowedFileName(stored);
  return stored;
}

/** The change as it is stored: times, addresses, the booking URL and preview texts normalised; 400 naming a field that cannot be. */
function normalizedChanges(changes: LinkChanges): LinkChanges {
  const { password } = changes;
  if (password !== undefined && password !== null && (password === '' || password.length > 256)) {
    throw badRequest('field "password" must be 1 to 256 characters, or null to remove it');
  }
  return {
    ...changes,
    ...(changes.expiresAt !== undefined && { expiresAt: normalizeExpiresAt(changes.expiresAt, 'expiresAt') }),
    ...(changes.allowedEmails && { allowedEmails: normalizeEmails(changes.allowedEmails, 'allowedEmails') }),
    ...(changes.allowedDomains && { allowedDomains: normalizeDomains(changes.allowedDomains, 'allowedDomains') }),
    ...(changes.blockedEmails && { blockedEmails: normalizeEmails(changes.blockedEmails, 'blockedEmails') }),
    ...(changes.blockedDomains && { blockedDomains: normalizeDomains(changes.blockedDomains, 'blockedDomains') }),
    ...(typeof changes.bookingUrl === 'string' && { bookingUrl: normalizeBookingUrl(changes.bookingUrl, 'bookingUrl') }),
    ...(changes.previewTitle !== undefined && { previewTitle: normalizePreviewText(changes.previewTitle, 'previewTitle', PREVIEW_TITLE_MAX) }),
    ...(changes.previewDescription !== undefined && {
      previewDescription: normalizePreviewText(changes.previewDescription, 'previewDescription', PREVIEW_DESCRIPTION_MAX),
    }),
  };
}

/** The settings a link's row stores as they are (its expiry and password are written apart). */
type StoredSettings = Omit<LinkSettings, 'expiration' | 'expiresAt' | 'password'>;

/** The columns that hold `settings`; a price and its currency are kept only while the file is for sale. */
function settingColumns(settings: StoredSettings) {
  const selling = settings.requirePaymentToDownload;
  return {
    has_watermark: Number(settings.hasWatermark),
    requires_approval: Number(settings.requiresApproval),
    requires_otp: Number(settings.requiresOtp),
    allowed_emails: JSON.stringify(settings.allowedEmails),
    allowed_domains: JSON.stringify(settings.allowedDomains),
    require_email: Number(settings.requireEmail),
    allow_download: Number(settings.allowDownload),
    notify_on_view: Number(settings.notifyOnView),
    preview_title: settings.previewTitle,
    preview_description: settings.previewDescription,
    agreement_id: settings.agreementId,
    blocked_emails: JSON.stringify(settings.blockedEmails),
    blocked_domains: JSON.stringify(settings.blockedDomains),
    booking_url: settings.bookingUrl,
    preview_pages: settings.previewPages,
    view_session_ttl: settings.viewSessionTtlSeconds,
    max_views: settings.maxViews,
    require_payment: Number(selling),
    download_price: selling ? settings.downloadPrice : null,
    download_currency: selling ? settings.downloadCurrency : null,
  } satisfies repo.LinkPatch;
}

/** The columns of a link that `next` gives other values than `current` has: the only ones a change writes. */
function changedColumns(current: LinkSettingsView, next: LinkSettingsView): repo.LinkPatch {
  const [before, after] = [current, next].map((settings) => ({ is_active: Number(settings.isActive), ...settingColumns(settings) }));
  return Object.fromEntries(Object.entries(after!).filter(([column, value]) => before![column as keyof typeof before] !== value));
}

/** What a change makes of a link: the columns it writes and its audit entry's details. */
interface LinkChange {
  patch: repo.LinkPatch;
  details: Record<string, unknown>;
}

/** Reads for maintenance tools (the CLI's doctor), which need no clock, blobs or viewer base. */
export function createLinkRecords(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** One stored file (blob key, wrapped file key, plaintext size), or undefined when none is stored. */
    async anyStoredFile(): Promise<{ linkId: string; blobKey: string; wrappedKey: string; size: number } | undefined> {
      const row = await repo.findAnyStoredFile(db);
      if (!row?.blob_key || !row.wrapped_key) return undefined;
      return { linkId: row.id, blobKey: row.blob_key, wrappedKey: row.wrapped_key, size: row.size };
    },

    /** Of the links `ids`, the blob keys their rows point at: any other blob under their prefix is an orphan. */
    async storedBlobKeys(ids: readonly string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      return new Set(await repo.findStoredBlobKeys(db, ids));
    },
  };
}

export type DocumentStatus = 'none' | 'processing' | 'ready' | 'failed';

/** `document` of a link object: how far the pages of its current version are ready to be shown. */
export interface DocumentSummary {
  status: DocumentStatus;
  pages: number | null;
  /** pages drawn so far: all of them once ready */
  rendered: number | null;
  error: string | null;
}

/** A link's documents, as modules/documents (which owns the renditions) answers for them to this one, built before it. */
export interface LinkDocuments {
  /** By link id; a link with no document of its current version (not paged, or not yet queued) is absent. */
  summariesOf(links: readonly Pick<LinkRow, 'id' | 'version' | 'mime' | 'name' | 'kind'>[]): Promise<Map<string, DocumentSummary>>;
  /** Deletes every rendition of the link's versions (converted PDFs, page images, thumbnails, stamp bases), rows and blobs. */
  discard(linkId: string): Promise<void>;
}

/** `GET /api/links`'s query, as the route has checked it. */
export interface LinkListQuery {
  page: number;
  limit: number;
  tab: repo.LinkTab;
  cursor?: string;
  q?: string;
  sort: repo.LinkSort;
  order?: repo.SortDirection;
}

const NO_DOCUMENT: DocumentSummary = { status: 'none', pages: null, rendered: null, error: null };

export function createLinksService(deps: {
  db: Db;
  clock: Clock;
  blobs: Pick<BlobStore, 'deletePrefix' | 'delete' | 'put' | 'get'>;
  /** Where an account's viewer links live: its custom domain, or PUBLIC_URL. */
  viewerBase: (accountId: number, db?: Executor) => Promise<string>;
  audit: Pick<AuditLog, 'record'>;
  payments: PaymentsPolicy;
  agreements: AgreementPolicy;
  documents: LinkDocuments;
  idempotency: Pick<IdempotencyService, 'once'>;
  /** Serialises the storage check of an account's uploads. */
  accounts: Pick<AccountRecords, 'lock'>;
  /** What an account's files may take in all (ACCOUNT_STORAGE_MB); null: no limit. */
  storageLimitBytes: number | null;
}) {
  const { db, clock, blobs, viewerBase, audit, payments, agreements, documents, idempotency, accounts, storageLimitBytes } = deps;

  /**
   * Refuses a file that would take the account's files past its storage limit (413), counting the
   * one it replaces as freed. Under the account's lock, so two uploads cannot both take the last room.
   */
  async function assertStorageFits(trx: Executor, accountId: number, adding: number, freeing = 0): Promise<void> {
    if (storageLimitBytes === null) return;
    await accounts.lock(trx, accountId);
    const used = await repo.storedBytesOf(trx, accountId);
    if (used - freeing + adding <= storageLimitBytes) return;
    throw payloadTooLarge(
      `This account's storage is full: its files take ${sizeLabel(used)} of its ${sizeLabel(storageLimitBytes)} and this one needs ${sizeLabel(adding)}. Delete links you no longer need, or ask whoever runs this linkvault for more room`,
    );
  }
  /** The spec's Link object, every setting, and how far its pages are. */
  const detailOf = async (link: LinkRow, settings = settingsOf(link)) => ({
    ...toLinkMetadata(link),
    viewer_url: await viewerUrlFor(link.account_id, link.id),
    settings,
    document: (await documents.summariesOf([link])).get(link.id) ?? NO_DOCUMENT,
  });
  const assertAgreement = async (accountId: number, id: number | null) => {
    if (id !== null) await agreements.assertUsable(accountId, id);
  };
  /** The viewer URL of an account's link, on the account's own domain when it has one (read on `executor`: a transaction holds SQLite's one connection). */
  const viewerUrlFor = async (accountId: number, id: string, executor?: Executor) => `${await viewerBase(accountId, executor)}${viewerPathOf(id)}`;

  function toListItem(link: LinkRow, base: string, document: DocumentSummary) {
    return {
      document,
      ...toLinkMetadata(link),
      kind: link.kind,
      is_active: link.is_active === 1,
      version: link.version,
      size: link.size,
      viewer_url: `${base}/v/${link.id}`,
      created_at: isoTime(link.created_at),
      expires_at: isoTime(link.expires_at),
      has_expiry: link.expires_at < NEVER_EXPIRES,
      last_viewed_at: link.last_viewed_at === 0 ? null : isoTime(link.last_viewed_at),
      requires_approval: link.requires_approval === 1,
      requires_otp: link.requires_otp === 1,
    };
  }

  /** The account's link, or 404; `live` also refuses an expired one with 410. */
  async function ownLink(accountId: number, id: string, options: { live: boolean }): Promise<LinkRow> {
    const link = await repo.findLink(db, accountId, id);
    if (!link) throw notFound(`Link ${id}`);
    if (options.live) assertLive(link);
    return link;
  }

  /** The account's live file link, whose file can be replaced: 404, 410 when expired, 422 for a data room. */
  async function ownFileLink(accountId: number, id: string): Promise<LinkRow> {
    const link = await ownLink(accountId, id, { live: true });
    if (link.kind !== 'file') throw unprocessable(`Link ${id} is a data room: it has no file to replace`);
    return link;
  }

  /** 410 for an expired link. */
  function assertLive(link: LinkRow): void {
    if (isExpired(link, clock())) throw gone();
  }

  /** The account's data room (an expired one too: its contents can be arranged before it is revived), else 404 or 422. */
  function asRoom(link: LinkRow | undefined, id: string): LinkRow {
    if (!link) throw notFound(`Link ${id}`);
    if (link.kind !== 'room') throw unprocessable(`Link ${id} is a file, not a data room`);
    return link;
  }

  const ownRoom = async (accountId: number, id: string) => asRoom(await repo.findLink(db, accountId, id), id);

  /** A room's links: each the account's own, none a room itself; held from deletion until the transaction ends. */
  async function assertRoomChildren(executor: Executor, accountId: number, childIds: readonly string[]): Promise<void> {
    const found = await repo.holdLinksByIds(executor, accountId, childIds);
    const missing = childIds.find((childId) => !found.some((link) => link.id === childId));
    if (missing !== undefined) throw notFound(`Link ${missing}`);
    if (found.some((link) => link.kind === 'room')) throw unprocessable('A data room cannot contain another data room');
  }

  /** Page `page` of the list's `total` links, skipped to from the nearer end: the last page costs what the first does. */
  async function pageByNumber(
    accountId: number,
    tab: repo.LinkTab,
    now: number,
    at: { page: number; limit: number; total: number; order: repo.LinkOrder; search?: string },
  ) {
    const { order, search } = at;
    const offset = (at.page - 1) * at.limit;
    if (offset >= at.total) return [];
    const onLaterPages = at.total - offset - at.limit;
    if (onLaterPages >= offset) return repo.listLinks(db, accountId, tab, now, { limit: at.limit, offset, order, search });
    const onThisPage = Math.min(at.limit, at.total - offset);
    return repo.listLinks(db, accountId, tab, now, { limit: onThisPage, offset: Math.max(0, onLaterPages), fromTheEnd: true, order, search });
  }

  /** An expired link takes a change only with a future `expiresAt`, and only while its file is kept (410, 422). */
  function assertChangeable(link: LinkRow, expiresAt: number | undefined): void {
    if (!isExpired(link, clock())) return;
    if (expiresAt === undefined) throw gone();
    if (link.blob_purged_at !== null) throw unprocessable('The file of this expired link has been deleted; upload it again as a new link');
  }

  /**
   * Changes the link from what it is now: `change` gets the row held for its transaction (repo.lockLink),
   * so a change sent at the same time is neither missed by its rules nor written over. The audit entry
   * commits with it. Answers the row as `change` read it; `change` runs no query outside `trx` (on
   * SQLite the transaction holds the one connection), so work that needs one comes before.
   */
  async function changeLink(
    source: ChangeSource,
    id: string,
    change: (link: LinkRow, trx: Executor) => LinkChange | Promise<LinkChange>,
  ): Promise<LinkRow> {
    return db.transaction().execute(async (trx) => {
      const link = await repo.lockLink(trx, source.accountId, id);
      if (!link) throw notFound(`Link ${id}`);
      const { patch, details } = await change(link, trx);
      if (Object.keys(patch).length > 0) await repo.updateLink(trx, source.accountId, id, patch);
      await audit.record(source, { action: 'link.updated', target: { type: 'link', id }, details }, trx);
      return link;
    });
  }

  /** Writes `patch` to a live link; answers the row as it was. */
  const changeSettings = (source: ChangeSource, id: string, patch: repo.LinkPatch, details: Record<string, unknown>) =>
    changeLink(source, id, (link) => {
      assertLive(link);
      return { patch, details };
    });

  /**
   * The link a viewer path names: `name` is a link's id, or with `roomId` the room name of one of that
   * data room's links. On an account's own domain (`hostAccountId`), other accounts' links do not exist.
   */
  async function fileAtViewerPath(name: string, roomId?: string, hostAccountId?: number): Promise<LinkRow | undefined> {
    const link = roomId
      ? (await repo.listRoomChildren(db, roomId)).find((child) => namesRoomChild(roomId, child, name))
      : await repo.findLinkById(db, name);
    return link && (hostAccountId === undefined || link.account_id === hostAccountId) ? link : undefined;
  }

  /** Deletes the stored files and renditions of links whose rows are gone. */
  async function purgeFiles(linkIds: readonly string[]): Promise<void> {
    for (const id of linkIds) {
      await blobs.deletePrefix(blobPrefixOf(id));
      await documents.discard(id);
    }
  }

  return {
    viewerUrlFor,
    newLinkId: () => randomBase62(22),

    /** What the account's files take, and may take in all (null: no limit). */
    async storage(accountId: number) {
      return { usedBytes: await repo.storedBytesOf(db, accountId), limitBytes: storageLimitBytes };
    },

    /** `alongWith` commits with the new link (an idempotency record of the answer). */
    async createFileLink(
      source: ChangeSource,
      linkId: string,
      file: StoredFile,
      settings: LinkSettings,
      alongWith?: CommitsWith<CreatedLink>,
    ): Promise<CreatedLink> {
      const { accountId } = source;
      await assertAgreement(accountId, settings.agreementId);
      const now = clock();
      const link: NewLink = {
        id: linkId,
        account_id: accountId,
        kind: 'file',
        name: file.name,
        mime: file.mime,
        version: 1,
        blob_key: file.blobKey,
        wrapped_key: file.wrappedKey,
        size: file.size,
        sha256: file.sha256,
        password_hash: settings.password === null ? null : await hashPassword(settings.password),
        ...settingColumns(settings),
        created_by: source.actor.type === 'user' ? source.actor.id : null,
        created_at: now,
        expires_at: expiryOf(settings, now),
      };
      const created: CreatedLink = { id: linkId, viewer_url: await viewerUrlFor(accountId, linkId) };
      const { password, ...visibleSettings } = settings;
      await db.transaction().execute(async (trx) => {
        await assertStorageFits(trx, accountId, file.size);
        await repo.insertLink(trx, link);
        await audit.record(
          source,
          {
            action: 'link.created',
            target: { type: 'link', id: linkId },
            details: { kind: 'file', name: file.name, size: file.size, ...visibleSettings, password_set: password !== null },
          },
          trx,
        );
        await alongWith?.(trx, created);
      });
      return created;
    },

    /**
     * A page of the tab in `sort` order (newest first unless told; names A to Z), its links
     * named like `q` when given: after `cursor` when given (keyset), else page `page`, read
     * from whichever end of the list is nearer (ADR 0011). Counts per tab are kept, not
     * counted; only a search counts its matches.
     */
    async list(accountId: number, query: LinkListQuery) {
      const now = clock();
      const { limit, tab } = query;
      const order: repo.LinkOrder = { sort: query.sort, direction: query.order ?? (query.sort === 'name' ? 'asc' : 'desc') };
      const search = query.q?.trim() || undefined;
      const cursor = query.cursor === undefined ? undefined : decodeListCursor(query.cursor, tab, order);
      const [counts, base] = await Promise.all([repo.countLinks(db, accountId, now), viewerBase(accountId)]);
      // Links whose expiry passed since the last list move to the expired tab before it is read (ADR 0015).
      if (counts.unfiled > 0) await db.transaction().execute((trx) => repo.fileExpiredLinks(trx, accountId, now));
      const total = search === undefined ? counts[tab] : await repo.countMatchingLinks(db, accountId, tab, now, search);
      const page = cursor?.page ?? query.page;
      let rows: Awaited<ReturnType<typeof repo.listLinks>>;
      let hasMore: boolean;
      if (cursor) {
        const read = await repo.listLinks(db, accountId, tab, now, { limit: limit + 1, after: cursor.position, order, search });
        hasMore = read.length > limit;
        rows = read.slice(0, limit);
      } else {
        rows = await pageByNumber(accountId, tab, now, { page, limit, total, order, search });
        hasMore = (page - 1) * limit + rows.length < total;
      }
      const last = rows.at(-1);
      const summaries = await documents.summariesOf(rows);
      return {
        links: rows.map((row) => toListItem(row, base, summaries.get(row.id) ?? NO_DOCUMENT)),
        pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
        nextCursor: hasMore && last ? encodeListCursor(tab, order, { position: { value: last.sortKey, id: last.id }, page: page + 1 }) : null,
        counts: { active: counts.active, expired: counts.expired },
      };
    },

    /** The spec's Link object and, beside it, every setting; an expired link is 410 unless `includeExpired`. */
    async get(accountId: number, id: string, options: { includeExpired: boolean } = { includeExpired: false }) {
      const link = await ownLink(accountId, id, { live: !options.includeExpired });
      return detailOf(link);
    },

    /**
     * Applies any subset of settings and the name in one transaction, after the same rules as
     * an upload, writing only the columns it changes on the row held (changes sent together all
     * hold); answers the link as `get` does. An expired link answers 410 unless the change
     * gives it a future `expiresAt` (while its file is still kept).
     */
    async update(source: ChangeSource, id: string, changes: LinkChanges) {
      const { accountId } = source;
      const stated = normalizedChanges(changes);
      const expiresAt = stated.expiresAt === undefined ? undefined : expiryOf({ expiration: '7d', expiresAt: stated.expiresAt }, clock());
      const { password, ...settings } = stated;
      // What other modules answer, and the password's hash (slow), come before the row is held;
      // the rules between settings are checked on the link as read now, then again on the row held.
      const link = await ownLink(accountId, id, { live: false });
      assertChangeable(link, expiresAt);
      const planned = { ...settingsOf(link), ...settings };
      assertConsistent(planned);
      if (planned.requirePaymentToDownload && link.kind === 'room') throw unprocessable('A data room has no file of its own to sell');
      if (stated.requirePaymentToDownload || stated.downloadPrice !== undefined) await assertPaymentsPossible(planned, accountId, payments);
      if (stated.agreementId !== undefined) await assertAgreement(accountId, stated.agreementId);
      const name = stated.name === undefined ? undefined : renamed(link, stated.name);
      const passwordHash = password === undefined || password === null ? password : await hashPassword(password);

      await changeLink(source, id, async (current, trx) => {
        assertChangeable(current, expiresAt);
        const before = settingsOf(current);
        const next = { ...before, ...settings };
        assertConsistent(next);
        if (expiresAt !== undefined) await repo.changeLinkExpiry(trx, accountId, id, expiresAt);
        const patch: repo.LinkPatch = {
          ...changedColumns(before, next),
          ...(name !== undefined && { name }),
          ...(passwordHash !== undefined && { password_hash: passwordHash }),
        };
        return { patch, details: changedFields(changes, ['password']) };
      });
      return detailOf(await ownLink(accountId, id, { live: false }));
    },

    /** The row itself, expired or not, for other modules acting on the owner's behalf. */
    ownLink,
    ownFileLink,

    async remove(source: ChangeSource, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const deleted = await repo.deleteLink(trx, source.accountId, id);
        if (!deleted) throw notFound(`Link ${id}`);
        await audit.record(source, { action: 'link.deleted', target: { type: 'link', id }, details: deleted }, trx);
      });
      // The row is gone first: no visitor can reach a half-deleted link. Rooms own no blob.
      await purgeFiles([id]);
    },

    /** Some of the links of an account being deleted (its `link_counts` go with it); `fileIds` for `purgeFiles` after the commit. */
    deleteSomeOf: (accountId: number, limit: number, trx: Executor) => repo.deleteLinksOfAccount(trx, accountId, limit),

    purgeFiles,

    setActive: (source: ChangeSource, id: string, isActive: boolean) =>
      changeSettings(source, id, { is_active: Number(isActive) }, changedFields({ isActive })),

    async setPassword(source: ChangeSource, id: string, password: string): Promise<boolean> {
      const hash = password === '' ? null : await hashPassword(password);
      await changeSettings(source, id, { password_hash: hash }, changedFields({ password: hash }, ['password']));
      return hash !== null;
    },

    setWatermark: (source: ChangeSource, id: string, hasWatermark: boolean) =>
      changeSettings(source, id, { has_watermark: Number(hasWatermark) }, changedFields({ hasWatermark })),

    setApproval: (source: ChangeSource, id: string, requiresApproval: boolean) =>
      changeSettings(source, id, { requires_approval: Number(requiresApproval) }, changedFields({ requiresApproval })),

    async setOtp(source: ChangeSource, id: string, input: { requiresOtp: boolean; allowedEmails?: string[]; allowedDomains?: string[] }) {
      const statedEmails = input.allowedEmails && normalizeEmails(input.allowedEmails, 'allowedEmails');
      const statedDomains = input.allowedDomains && normalizeDomains(input.allowedDomains, 'allowedDomains');
      await changeLink(source, id, (link) => {
        assertLive(link);
        const allowedEmails = statedEmails ?? parseList(link.allowed_emails);
        const allowedDomains = statedDomains ?? parseList(link.allowed_domains);
        assertConsistent({ ...settingsOf(link), requiresOtp: input.requiresOtp, allowedEmails, allowedDomains });
        return {
          patch: {
            requires_otp: Number(input.requiresOtp),
            allowed_emails: JSON.stringify(allowedEmails),
            allowed_domains: JSON.stringify(allowedDomains),
          },
          details: changedFields({ requiresOtp: input.requiresOtp, allowedEmails, allowedDomains }),
        };
      });
    },

    /** Stores the picture link previews show (re-encoded as PNG, at most 1200 px a side) under the link's prefix. */
    async setPreviewImage(source: ChangeSource, id: string, upload: Buffer) {
      await ownLink(source.accountId, id, { live: true });
      const png = await reencodeImage(upload, 'preview image', 1200);
      const key = `${blobPrefixOf(id)}preview-${randomBase62(12)}.png`;
      await blobs.put(key, Readable.from([png]));
      let replaced: LinkRow;
      try {
        replaced = await changeSettings(source, id, { preview_image_key: key }, changedFields({ previewImage: true }));
      } catch (error) {
        await blobs.delete(key);
        throw error;
      }
      // The picture this one replaced, as the row held it: one sent at the same time is not left behind.
      if (replaced.preview_image_key) await blobs.delete(replaced.preview_image_key);
      return detailOf({ ...replaced, preview_image_key: key });
    },

    async removePreviewImage(source: ChangeSource, id: string) {
      const removed = await changeSettings(source, id, { preview_image_key: null }, changedFields({ previewImage: false }));
      if (removed.preview_image_key) await blobs.delete(removed.preview_image_key);
    },

    /**
     * The preview picture of the link a viewer path names, for the apps that unfurl it (public: the owner
     * chose to show it), while visitors may open it there: the link, and the room it is opened in,
     * switched on and not expired.
     */
    async previewImageOf(id: string, roomId?: string, hostAccountId?: number) {
      const [link, room] = await Promise.all([fileAtViewerPath(id, roomId, hostAccountId), roomId ? repo.findLinkById(db, roomId) : undefined]);
      const now = clock();
      const listed = link && isListedForVisitors(link, now) && (!roomId || (room !== undefined && isListedForVisitors(room, now)));
      if (!listed || !link.preview_image_key) throw notFound('Preview image');
      return blobs.get(link.preview_image_key);
    },

    async setBookingUrl(source: ChangeSource, id: string, bookingUrl: string) {
      const normalized = normalizeBookingUrl(bookingUrl, 'booking_url');
      await changeSettings(source, id, { booking_url: normalized }, changedFields({ booking_url: normalized }));
    },

    /**
     * Makes `file` the link's current version. The previous blob is left to the orphan sweep, which
     * deletes it once no row names it: a download that read the link just before the switch is
     * still to open it (deleted at once, it failed with a 500 after spending a use of its token).
     * `alongWith` commits with the switch (an idempotency record of the answer).
     */
    async replaceFile(source: ChangeSource, id: string, file: StoredFile, fromVersion: number, alongWith?: CommitsWith<ReplacedFile>) {
      const { accountId } = source;
      const current = await ownFileLink(accountId, id);
      const replaced: ReplacedFile = { ok: true, version: fromVersion + 1 };
      await db.transaction().execute(async (trx) => {
        await assertStorageFits(trx, accountId, file.size, current.blob_purged_at === null ? current.size : 0);
        const switched = await repo.replaceLinkFile(trx, accountId, id, fromVersion, {
          blob_key: file.blobKey,
          wrapped_key: file.wrappedKey,
          name: file.name,
          mime: file.mime,
          size: file.size,
          sha256: file.sha256,
        });
        if (!switched) throw unprocessable('The file was replaced by another request at the same time; try again');
        await audit.record(
          source,
          {
            action: 'link.file_replaced',
            target: { type: 'link', id },
            details: { version: replaced.version, name: file.name, mime: file.mime, size: file.size },
          },
          trx,
        );
        await alongWith?.(trx, replaced);
      });
      return replaced;
    },

    /** A new data room; with an `Idempotency-Key`, a retry within 24 hours answers the first one instead of making another. */
    createRoom(source: ChangeSource, input: { name: string; childIds: string[]; expiration?: Expiration }, idempotencyKey?: string) {
      const { accountId } = source;
      return idempotency.once<{ ok: boolean; id: string; viewer_url: string }>(accountId, idempotencyKey, 'room:create', async (recordAnswer) => {
        const expiration = input.expiration ?? '7d';
        const childIds = [...new Set(input.childIds)];
        const name = roomName(input.name);
        const now = clock();
        const id = randomBase62(22);
        const created = { ok: true, id, viewer_url: await viewerUrlFor(accountId, id) };
        await db.transaction().execute(async (trx) => {
          await assertRoomChildren(trx, accountId, childIds);
          await repo.insertLink(trx, {
            id,
            account_id: accountId,
            kind: 'room',
            name,
            mime: ROOM_MIME,
            created_by: source.actor.type === 'user' ? source.actor.id : null,
            created_at: now,
            expires_at: now + EXPIRATIONS[expiration],
          });
          await repo.insertRoomLinks(trx, id, childIds);
          await audit.record(
            source,
            { action: 'link.created', target: { type: 'link', id }, details: { kind: 'room', name, expiration, childIds } },
            trx,
          );
          await recordAnswer?.(trx, created);
        });
        return created;
      });
    },

    /** The account's data rooms, newest first, each with its viewer URL and how many links it holds. */
    async listRooms(accountId: number, query: { page: number; limit: number }) {
      const { page, limit } = query;
      const [rows, total, base] = await Promise.all([
        repo.listRooms(db, accountId, { limit, offset: (page - 1) * limit }),
        repo.countRooms(db, accountId),
        viewerBase(accountId),
      ]);
      const now = clock();
      return {
        rooms: rows.map((row) => ({
          ...toLinkMetadata(row),
          viewer_url: `${base}${viewerPathOf(row.id)}`,
          links: Number(row.child_count ?? 0),
          is_active: row.is_active === 1,
          is_expired: isExpired(row, now),
          created_at: isoTime(row.created_at),
          expires_at: isoTime(row.expires_at),
          has_expiry: row.expires_at < NEVER_EXPIRES,
        })),
        pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
      };
    },

    /** The links a data room shows, in its order. */
    async roomChildrenOf(accountId: number, id: string) {
      const room = await ownRoom(accountId, id);
      const [children, base] = await Promise.all([repo.listRoomChildren(db, room.id), viewerBase(accountId)]);
      return { children: children.map((child) => ({ ...toLinkMetadata(child), viewer_url: `${base}${viewerPathOf(child.id)}` })) };
    },

    /** The room shows exactly `childIds` from now on (each the account's file link), in that order. */
    async setRoomChildren(source: ChangeSource, id: string, input: { childIds: string[] }) {
      const childIds = [...new Set(input.childIds)];
      await db.transaction().execute(async (trx) => {
        // Held: two replacements at once would each delete, then both insert, the same rows.
        const room = asRoom(await repo.lockLink(trx, source.accountId, id), id);
        await assertRoomChildren(trx, source.accountId, childIds);
        await repo.replaceRoomLinks(trx, room.id, childIds);
        await audit.record(source, { action: 'link.updated', target: { type: 'link', id }, details: { childIds } }, trx);
      });
      return { ok: true, children_ids: childIds };
    },

    /** Any account's link by id, for the visitor pages (the id itself is the capability). */
    findForVisitor: (id: string) => repo.findLinkById(db, id),

    fileAtViewerPath,

    roomChildren: (roomId: string) => repo.listRoomChildren(db, roomId),

    /** Counts one view in the visit's transaction unless the link's view cap is reached (false then). */
    countViewUnderCap: (trx: Executor, linkId: string, at: number = clock()) => repo.countViewUnderCap(trx, linkId, at),

    /** Counts a visitor refused by a block list, in the caller's transaction. */
    countBlockedAttempt: (trx: Executor, linkId: string) => repo.countBlockedAttempt(trx, linkId),

    /** Which of `ids` are the account's links, read in the caller's transaction when given one. */
    async ownIds(accountId: number, ids: readonly string[], executor: Executor = db): Promise<Set<string>> {
      return new Set((await repo.findLinksByIds(executor, accountId, ids)).map((link) => link.id));
    },

    /** Deletes the files of links expired more than `retentionMs` ago, their renditions too; their metadata stays. */
    async purgeExpiredBlobs(retentionMs: number): Promise<number> {
      let purged = 0;
      for (;;) {
        const expiredBefore = clock() - retentionMs;
        const batch = await repo.findExpiredWithBlobs(db, expiredBefore, PURGE_BATCH);
        for (const link of batch) {
          if (!(await repo.claimBlobPurge(db, link.id, expiredBefore, clock()))) continue;
          try {
            await blobs.deletePrefix(blobPrefixOf(link.id));
            await documents.discard(link.id);
          } catch (error) {
            await repo.releaseBlobPurge(db, link.id);
            throw error;
          }
          purged += 1;
        }
        if (batch.length < PURGE_BATCH) return purged;
      }
    },
  };
}

export type LinksService = ReturnType<typeof createLinksService>;
