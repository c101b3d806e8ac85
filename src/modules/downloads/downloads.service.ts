import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { forbidden, notFound } from '../../core/errors.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import type { ByteRange } from '../../infra/storage/index.js';
import type { FileReader } from '../files/file-reader.js';
import type { LinksService } from '../links/links.service.js';
import { findFileLink, insertDownloadToken, spendDownloadToken } from './downloads.repo.js';

const TOKEN_PREFIX = 'lvd_';

export interface OriginalFile {
  name: string;
  mime: string;
  size: number;
  open(range?: ByteRange): ReturnType<FileReader['open']>;
}

/** Download tokens and the original (un-watermarked) file they unlock. */
export function createDownloadsService(deps: { db: Db; clock: Clock; reader: FileReader; links: Pick<LinksService, 'ownLink'> }) {
  const { db, clock, reader, links } = deps;
  return {
    async issueToken(accountId: number, linkId: string, options: { uses: number; ttlSeconds: number }) {
      const link = await links.ownLink(accountId, linkId, { live: true });
      if (link.kind !== 'file') throw notFound(`File link ${linkId}`);
      const token = TOKEN_PREFIX + randomBase62(40);
      const now = clock();
      const expiresAt = now + options.ttlSeconds * 1000;
      await insertDownloadToken(db, { linkId, tokenHash: sha256Hex(token), uses: options.uses, expiresAt, createdAt: now });
      return { token, expires_at: new Date(expiresAt).toISOString(), uses: options.uses };
    },

    /**
     * Spends one use of `token` and describes the original file. Every refusal is the same
     * 403, so a caller learns nothing about which links or tokens exist.
     */
    async redeemToken(linkId: string, token: string): Promise<OriginalFile> {
      const refused = () => forbidden('A valid download token or paid checkout session is required');
      const link = await findFileLink(db, linkId);
      if (!link || link.kind !== 'file' || !link.blob_key || !link.wrapped_key || link.blob_purged_at !== null) throw refused();
      if (!(await spendDownloadToken(db, linkId, sha256Hex(token), clock()))) throw refused();
      const file = { blobKey: link.blob_key, wrappedKey: link.wrapped_key, size: link.size };
      return { name: link.name, mime: link.mime, size: link.size, open: (range) => reader.open(file, range) };
    },
  };
}

export type DownloadsService = ReturnType<typeof createDownloadsService>;
