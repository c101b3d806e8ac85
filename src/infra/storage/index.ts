import type { StorageConfig } from '../../config.js';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './local-store.js';

export { BlobNotFoundError, StorageUnavailableError, type BlobEntry, type BlobStore, type ByteRange } from './blob-store.js';

export interface BlobStoreOptions {
  /** Local disk: the folder is taken as it is, neither made nor swept of stale temp files (the doctor looks, it changes nothing). */
  inspectOnly?: boolean;
  /** S3: each request fails after this long, without retries. */
  timeoutMs?: number;
}

/** Local disk unless STORAGE_URL names an s3:// bucket; the AWS SDK loads only for the latter. */
export async function createBlobStore(config: StorageConfig, options: BlobStoreOptions = {}): Promise<BlobStore> {
  switch (config.kind) {
    case 'local':
      return createLocalBlobStore(config.dir, options);
    case 's3':
      return (await import('./s3-store.js')).createS3BlobStore(config, options);
  }
}
