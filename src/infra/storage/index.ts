import type { StorageConfig } from '../../config.js';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './local-store.js';
import { createS3BlobStore } from './s3-store.js';

export { BlobNotFoundError, type BlobStore, type ByteRange } from './blob-store.js';

/** Local disk unless STORAGE_URL names an s3:// bucket. */
export function createBlobStore(config: StorageConfig): BlobStore {
  switch (config.kind) {
    case 'local':
      return createLocalBlobStore(config.dir);
    case 's3':
      return createS3BlobStore(config);
  }
}
