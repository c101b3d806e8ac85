import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import { forbidden, notFound } from '../../core/errors.js';
import { isoTime } from '../../core/timestamps.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import type { ByteRange } from '../../infra/storage/index.js';
import type { EventRecorder } from '../events/events.service.js';
import type { FileReader } from '../files/file-reader.js';
import type { LinksService } from '../links/links.service.js';
import { insertDownloadToken, spendDownloadToken } from './downloads.repo.js';

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

  async function mintToken(executor: Executor, linkId: string, options: { uses: number; ttlSeconds: number }) {
    const token = TOKEN_PREFIX + randomBase62(40);
    const now = clock();
    const expiresAt = now + options.ttlSeconds * 1000;
    await insertDownloadToken(executor, { linkId, tokenHash: sha256Hex(token), uses: options.uses, expiresAt, createdAt: now });
    return { token, expiresAt };
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
      const { token, expiresAt } = await mintToken(db, linkId, options);
      return { token, expires_at: isoTime(expiresAt), uses: options.uses };
    },

    /** A token a buyer paid for: the purchase vouches for it, not an owner's key. Written in the caller's transaction. */
    issuePurchaseToken: (linkId: string, options: { uses: number; ttlSeconds: number }, executor: Executor) =>
      mintToken(executor, linkId, options),

    redeemWith,

    /**
     * Spends one use of `token` and describes the original file. Every refusal is the same
     * 403, so a caller learns nothing about which links or tokens exist.
     */
    redeemToken(linkId: string, token: string): Promise<OriginalFile> {
      return redeemWith(linkId, (link) =>
        db.transaction().execute(async (trx) => {
          if (!(await spendDownloadToken(trx, linkId, sha256Hex(token), clock()))) return false;
          await events.record(trx, { accountId: link.account_id, type: 'link.downloaded', linkId, payload: { linkName: link.name } });
          return true;
        }),
      );
    },
  };
}

export type DownloadsService = ReturnType<typeof createDownloadsService>;
