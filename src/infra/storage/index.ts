import type { StorageConfig } from '../../config.js';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './local-store.js';

export { BlobNotFoundError, StorageUnavailableError, type BlobEntry, type BlobStore, type ByteRange } from './blob-store.js';

export interface BlobStoreOptions {
  /** S3: each request fails after this long, without retries. */
  timeoutMs?: number;
}

/** Local disk unless STORAGE_URL names an s3:// bucket; the AWS SDK loads only for the latter. */
export async function createBlobStore(config: StorageConfig, options: BlobStoreOptions = {}): Promise<BlobStore> {
  switch (config.kind) {
    case 'local':
      return createLocalBlobStore(config.dir);
    case 's3':
      return (await import('./s3-store.js')).createS3BlobStore(config, options);
  }
}
