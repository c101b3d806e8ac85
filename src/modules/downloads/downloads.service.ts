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
import { findSpendableDownloadToken, insertDownloadToken, spendDownloadToken } from './downloads.repo.js';

const TOKEN_PREFIX = 'lvd_';

export interface OriginalFile {
  name: string;
  mime: string;
  size: number;
  open(range?: ByteRange): ReturnType<FileReader['open']>;
}

/** Download tokens and the original (un-watermarked) file they unlock. */
export function createDownloadsService(deps: {
  db: Db;
  clock: Clock;
  reader: FileReader;
  links: Pick<LinksService, 'ownLink' | 'findForVisitor'>;
  events: EventRecorder;
}) {
  const { db, clock, reader, links, events } = deps;

  async function mintToken(executor: Executor, linkId: string, options: { uses: number; ttlSeconds: number; purchased: boolean }) {
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

  /** Checks the link still has its file, then spends one use of the caller's proof (same 403 for every refusal). */
  async function redeemWith(linkId: string, spend: (link: LinkRow) => Promise<boolean>): Promise<OriginalFile> {
    const refused = () => forbidden('A valid download token or paid checkout session is required');
    const link = await links.findForVisitor(linkId);
    if (!link || link.kind !== 'file' || !link.blob_key || !link.wrapped_key || link.blob_purged_at !== null) throw refused();
    if (!(await spend(link))) throw refused();
    const file = { blobKey: link.blob_key, wrappedKey: link.wrapped_key, size: link.size };
    return { name: link.name, mime: link.mime, size: link.size, open: (range) => reader.open(file, range) };
  }

  return {
    async issueToken(accountId: number, linkId: string, options: { uses: number; ttlSeconds: number }) {
      const link = await links.ownLink(accountId, linkId, { live: true });
      if (link.kind !== 'file') throw notFound(`File link ${linkId}`);
      const { token, expiresAt } = await mintToken(db, linkId, { ...options, purchased: false });
      return { token, expires_at: isoTime(expiresAt), uses: options.uses };
    },

    /** A token a buyer paid for: the purchase vouches for it, not an owner's key. Written in the caller's transaction. */
    issuePurchaseToken: (linkId: string, options: { uses: number; ttlSeconds: number }, executor: Executor) =>
      mintToken(executor, linkId, { ...options, purchased: true }),

    redeemWith,

    /**
     * Spends one use of `token` and describes the original file. A missing, spent or foreign
     * token is the same 403 whatever the link, so a caller learns nothing about which links
     * or tokens exist; only a holder of a live token learns that its link expired or was
     * turned off.
     */
    redeemToken(linkId: string, token: string): Promise<OriginalFile> {
      const tokenHash = sha256Hex(token);
      return redeemWith(linkId, async (link) => {
        const found = await findSpendableDownloadToken(db, linkId, tokenHash, clock());
        if (!found) return false;
        if (found.purchased !== 1) assertLinkStillShared(link);
        return db.transaction().execute(async (trx) => {
          if (!(await spendDownloadToken(trx, linkId, tokenHash, clock()))) return false;
          await events.record(trx, { accountId: link.account_id, type: 'link.downloaded', linkId, payload: { linkName: link.name } });
          return true;
        });
      });
    },
  };
}

export type DownloadsService = ReturnType<typeof createDownloadsService>;
