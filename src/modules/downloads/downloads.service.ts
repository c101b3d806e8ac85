import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import { forbidden, gone, notFound } from '../../core/errors.js';
import { isoTime } from '../../core/timestamps.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import type { ByteRange } from '../../infra/storage/index.js';
import type { EventRecorder } from '../events/events.service.js';
import type { FileReader } from '../files/file-reader.js';
import { isExpired, type LinksService } from '../links/links.service.js';
import { deleteExpiredDownloadTokens, findSpendableDownloadToken, insertDownloadToken, spendDownloadToken } from './downloads.repo.js';

const TOKEN_PREFIX = 'lvd_';

export interface OriginalFile {
  name: string;
  mime: string;
  size: number;
  open(range?: ByteRange): ReturnType<FileReader['open']>;
}

/** Proof of purchase through a payment session (the payments module): by the session's id, or a receipt token's hash of it. */
export interface SessionDownloads {
  spendSessionDownload(link: LinkRow, sessionId: string): Promise<boolean>;
  spendPurchaseDownload(link: LinkRow, checkoutSessionHash: string): Promise<boolean>;
}

/**
 * Where a download names its file: a link by its id (the API), or as a viewer page's path names it
 * (a data room's link by its room name, never its id); on an account's own domain, only its links.
 */
export interface FilePlace {
  linkId: string;
  roomId?: string;
  hostAccountId?: number;
}

/** Download tokens and the original (un-watermarked) file they unlock. */
export function createDownloadsService(deps: {
  db: Db;
  clock: Clock;
  reader: FileReader;
  links: Pick<LinksService, 'ownLink' | 'fileAtViewerPath'>;
  events: EventRecorder;
  purchases: SessionDownloads;
}) {
  const { db, clock, reader, links, events, purchases } = deps;

  async function mintToken(
    executor: Executor,
    linkId: string,
    options: { uses: number; ttlSeconds: number; purchased: boolean; checkoutSessionHash?: string },
  ) {
    const token = TOKEN_PREFIX + randomBase62(40);
    const now = clock();
    const expiresAt = now + options.ttlSeconds * 1000;
    await insertDownloadToken(executor, {
      linkId,
      tokenHash: sha256Hex(token),
      uses: options.uses,
      expiresAt,
      createdAt: now,
      purchased: options.purchased,
      checkoutSessionHash: options.checkoutSessionHash,
    });
    return { token, expiresAt };
  }

  /**
   * An owner's token obeys its link like every visitor path: 410 once the link expired, 403
   * once it is deactivated. A buyer paid for the file, so a purchase keeps working until the
   * file is deleted.
   */
  function assertLinkStillShared(link: LinkRow): void {
    if (isExpired(link, clock())) throw gone();
    if (link.is_active !== 1) throw forbidden('This link has been deactivated');
  }

  /** Spends one use of `token` on `link`; false for a missing, spent or foreign token. */
  async function spendToken(link: LinkRow, token: string): Promise<boolean> {
    const tokenHash = sha256Hex(token);
    const found = await findSpendableDownloadToken(db, link.id, tokenHash, clock());
    if (!found) return false;
    // A receipt's token spends its purchase's downloads, which a refund ends.
    if (found.checkout_session_hash !== null) return purchases.spendPurchaseDownload(link, found.checkout_session_hash);
    if (found.purchased !== 1) assertLinkStillShared(link);
    return db.transaction().execute(async (trx) => {
      if (!(await spendDownloadToken(trx, link.id, tokenHash, clock()))) return false;
      await events.record(trx, { accountId: link.account_id, type: 'link.downloaded', linkId: link.id, payload: { linkName: link.name } });
      return true;
    });
  }

  return {
    async issueToken(accountId: number, linkId: string, options: { uses: number; ttlSeconds: number }) {
      const link = await links.ownLink(accountId, linkId, { live: true });
      if (link.kind !== 'file') throw notFound(`File link ${linkId}`);
      const { token, expiresAt } = await mintToken(db, linkId, { ...options, purchased: false });
      return { token, expires_at: isoTime(expiresAt), uses: options.uses };
    },

    /**
     * A buyer's receipt token: it spends the downloads of the purchase of `checkoutSessionHash`, as
     * that session's id does, and lives as long. Written in the caller's transaction.
     */
    issuePurchaseToken: (linkId: string, options: { checkoutSessionHash: string; ttlSeconds: number }, executor: Executor) =>
      mintToken(executor, linkId, { ...options, uses: 1, purchased: true }),

    /**
     * Spends one use of the caller's proof (a download token, or a paid checkout session) on the file
     * `where` names, and describes the original. A missing, spent or foreign proof, or a path that names
     * no file, is the same 403 whatever the link, so a caller learns nothing about which links or
     * tokens exist; only a holder of a live owner's token learns that its link expired or was turned off.
     */
    async redeem(where: FilePlace, proof: { token?: string; sessionId?: string }): Promise<OriginalFile> {
      const refused = () => forbidden('A valid download token or paid checkout session is required');
      const { token, sessionId } = proof;
      if (!token && !sessionId) throw refused();
      const link = await links.fileAtViewerPath(where.linkId, where.roomId, where.hostAccountId);
      if (!link || link.kind !== 'file' || !link.blob_key || !link.wrapped_key || link.blob_purged_at !== null) throw refused();
      if (!(await (token ? spendToken(link, token) : purchases.spendSessionDownload(link, sessionId!)))) throw refused();
      const file = { blobKey: link.blob_key, wrappedKey: link.wrapped_key, size: link.size };
      return { name: link.name, mime: link.mime, size: link.size, open: (range) => reader.open(file, range) };
    },

    deleteTokensExpiredBefore: (before: number, limit: number) => deleteExpiredDownloadTokens(db, before, limit),
  };
}

export type DownloadsService = ReturnType<typeof createDownloadsService>;
