import { scheduledJob } from '../../core/periodic-job.js';
import type { BlobEntry, BlobStore } from '../../infra/storage/index.js';
import { failureLevel } from '../../db/executor.js';

/**
 * A module whose rows point at blobs under `prefix`, each keyed `<prefix><owner id>/…`
 * (`links/<link id>/v1-…`, `branding/<account id>/logo-….png`).
 */
export interface BlobOwner {
  prefix: string;
  /** Of the owners `ids`, the blob keys their rows point at: any other blob under their folders is an orphan. */
  storedKeys(ids: readonly string[]): Promise<Set<string>>;
}

/**
 * A blob is judged only once it is this old: an upload stores its blob before it writes the
 * row that points at it (no row without its blob), so a young blob with no row may be an
 * upload still committing, on this replica or another.
 */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;
const BATCH = 500;

/**
 * Deletes blobs that no row points at, once older than ORPHAN_GRACE_MS: what a crash leaves
 * between storing a file and committing its row (a new link, a replacement, a new logo), or
 * between committing a replacement or a deletion and deleting the old blob. At start, then
 * hourly; replicas may all run it: deleting a blob twice is harmless.
 */
export function createOrphanBlobSweeper(deps: {
  blobs: Pick<BlobStore, 'entries' | 'delete'>;
  owners: BlobOwner[];
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  /** Wall-clock time, compared with the store's modification times (default Date.now). */
  now?: () => number;
  intervalMs?: number;
}) {
  const { blobs, owners, log, now = Date.now } = deps;

  /** Deletes the blobs of `batch` that no row of `owner` points at; how many went. */
  async function deleteUnreferenced(owner: BlobOwner, batch: BlobEntry[]): Promise<number> {
    // The owner id is the key's second segment: the rows are looked up by their ids.
    const ownerIds = [...new Set(batch.map((entry) => entry.key.split('/')[1]!))];
    const stored = await owner.storedKeys(ownerIds);
    let deleted = 0;
    for (const { key } of batch) {
      if (stored.has(key)) continue;
      await blobs.delete(key);
      deleted++;
    }
    return deleted;
  }

  /** One pass over each owner's folder; resolves with how many orphans were deleted. */
  async function sweep(): Promise<number> {
    const judgedBefore = now() - ORPHAN_GRACE_MS;
    let deleted = 0;
    for (const owner of owners) {
      let batch: BlobEntry[] = [];
      for await (const entry of blobs.entries(owner.prefix)) {
        if (entry.modifiedAt >= judgedBefore) continue;
        batch.push(entry);
        if (batch.length >= BATCH) {
          deleted += await deleteUnreferenced(owner, batch);
          batch = [];
        }
      }
      if (batch.length > 0) deleted += await deleteUnreferenced(owner, batch);
    }
    if (deleted > 0) log.info({ deleted }, 'deleted stored files that no row points at (left by a crash)');
    return deleted;
  }

  return {
    sweep,
    ...scheduledJob(sweep, deps.intervalMs ?? 3_600_000, (err) => log[failureLevel(err)]({ err }, 'orphan-file sweep failed')),
  };
}

export type OrphanBlobSweeper = ReturnType<typeof createOrphanBlobSweeper>;
