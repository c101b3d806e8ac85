import type { Db } from '../../db/kysely.js';
import { addKeyUsage } from './api-keys.repo.js';

interface Usage {
  requests: number;
  lastUsedAt: number;
}

/**
 * Request counts per key, added up in memory and written in one transaction every second
 * (and at shutdown), instead of a write per request, which cost more than the request
 * itself. Increments are synchronous, so concurrent requests never lose one; a failed write
 * puts its counts back, and one write runs at a time. What a hard crash can lose is at most the last second.
 */
export function createKeyUsage(deps: { db: Db; flushMs?: number; onError: (error: unknown) => void }) {
  const { db, onError } = deps;
  const flushMs = deps.flushMs ?? 1000;
  let pending = new Map<number, Usage>();
  let timer: NodeJS.Timeout | undefined;

  function add(into: Map<number, Usage>, keyId: number, requests: number, lastUsedAt: number): void {
    const current = into.get(keyId);
    if (current) {
      current.requests += requests;
      if (lastUsedAt > current.lastUsedAt) current.lastUsedAt = lastUsedAt;
    } else into.set(keyId, { requests, lastUsedAt });
  }

  /** The write under way, which the next one waits for: stop() must not return while one is still out. */
  let writing: Promise<void> | undefined;

  async function write(batch: Map<number, Usage>): Promise<void> {
    try {
      await db.transaction().execute(async (trx) => {
        // In key order: replicas writing the same keys then lock them in the same order and never deadlock.
        for (const [keyId, usage] of [...batch].sort(([a], [b]) => a - b)) await addKeyUsage(trx, keyId, usage.requests, usage.lastUsedAt);
      });
    } catch (error) {
      for (const [keyId, usage] of batch) add(pending, keyId, usage.requests, usage.lastUsedAt);
      throw error;
    }
  }

  async function flush(): Promise<void> {
    while (writing) await writing.catch(() => undefined);
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    writing = write(batch);
    try {
      await writing;
    } finally {
      writing = undefined;
    }
  }

  return {
    record(keyId: number, at: number): void {
      add(pending, keyId, 1, at);
    },
    /** Counted here but not yet written. */
    unwritten(keyId: number): Usage | undefined {
      return pending.get(keyId);
    },
    flush,
    start(): void {
      timer ??= setInterval(() => flush().catch(onError), flushMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}

export type KeyUsage = ReturnType<typeof createKeyUsage>;
