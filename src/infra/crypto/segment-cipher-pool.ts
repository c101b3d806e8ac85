import { Worker } from 'node:worker_threads';
import type { FileKey } from './envelope.js';
import { SEGMENT_SIZE } from './segment-format.js';
import type { CipherJob, CipherReply, CipherRequest } from './segment-cipher-worker.js';

// The worker is TypeScript. On Node 20 a loader given in a Worker's execArgv (`--import tsx`)
// does not apply to the worker's own entry (nodejs/node#47747), so a one-line ES module
// registers tsx inside the thread first, as bin/linkvault.js does for the main one.
// Absolute URLs: a data: module cannot resolve bare or relative names. No inherited execArgv,
// so the thread gets this one loader however the parent was started.
const WORKER_BOOTSTRAP = new URL(
  'data:text/javascript,' +
    encodeURIComponent(
      `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register();` +
        `await import(${JSON.stringify(new URL('./segment-cipher-worker.ts', import.meta.url).href)});`,
    ),
);

/** Plaintext per message: 16 segments, 1 MiB. */
export const BATCH_BYTES = 16 * SEGMENT_SIZE;
// Allocating a SharedArrayBuffer costs far more than filling one (about 0.5-5 ms per MiB
// measured here), so batch buffers are recycled; this many idle ones are kept per thread.
const IDLE_BUFFERS_PER_THREAD = 4;

/** Worker threads that seal segments and hash plaintext off the event loop, shared by all uploads. */
export interface SegmentCipherPool {
  readonly size: number;
  startEncryption(key: FileKey): PooledEncryption;
  /** Ends the threads; work still in flight fails. */
  close(): Promise<void>;
}

/** One file's encryption: its batches may go to any thread, its SHA-256 stays on one. */
export interface PooledEncryption {
  /**
   * Seals up to BATCH_BYTES of plaintext, given as pieces, as segments numbered from
   * `firstIndex`; only a batch that ends the file (`last`) may end in a partial segment.
   * Resolves to ciphertext || tag per segment. The pieces are copied before it returns.
   */
  seal(plaintext: readonly Uint8Array[], bytes: number, firstIndex: number, last: boolean): Promise<Buffer>;
  /** SHA-256 (hex) of all plaintext given to seal(), in call order; call once, after the last seal(). */
  digest(): Promise<string>;
  /** Drops the hash state of a file whose stream was abandoned. */
  abandon(): void;
}

class CipherThread {
  readonly #worker = new Worker(WORKER_BOOTSTRAP, { execArgv: [] });
  readonly #waiting = new Map<number, { resolve(reply: CipherReply): void; reject(error: Error): void }>();
  #nextId = 0;
  #failure: Error | undefined;

  constructor() {
    // An idle pool never keeps the process alive; a thread is ref'd only while a reply is due.
    this.#worker.unref();
    this.#worker.on('message', (reply: CipherReply) => this.#settle(reply));
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => this.#fail(new Error(`segment cipher worker exited with code ${code}`)));
  }

  get load(): number {
    return this.#waiting.size;
  }

  get failed(): boolean {
    return this.#failure !== undefined;
  }

  request(job: CipherJob): Promise<CipherReply> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.#worker.ref();
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ id, job } satisfies CipherRequest);
    });
  }

  async terminate(): Promise<void> {
    await this.#worker.terminate();
  }

  #settle(reply: CipherReply): void {
    const waiter = this.#waiting.get(reply.id);
    if (!waiter) return;
    this.#waiting.delete(reply.id);
    if (this.#waiting.size === 0) this.#worker.unref();
    if (reply.error !== undefined) waiter.reject(new Error(reply.error));
    else waiter.resolve(reply);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiter of this.#waiting.values()) waiter.reject(this.#failure);
    this.#waiting.clear();
  }
}

export function createSegmentCipherPool(size = 2): SegmentCipherPool {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`a segment cipher pool needs at least one thread, not ${size}`);
  const threads = Array.from({ length: size }, () => new CipherThread());
  let closed = false;
  let nextHashId = 0;
  const idleBuffers: SharedArrayBuffer[] = [];

  // The one copy on the event loop: into memory both the sealing and the hashing thread read.
  const sharedCopy = (pieces: readonly Uint8Array[], bytes: number): Uint8Array => {
    const shared = new Uint8Array(idleBuffers.pop() ?? new SharedArrayBuffer(BATCH_BYTES), 0, bytes);
    let offset = 0;
    for (const piece of pieces) {
      shared.set(piece, offset);
      offset += piece.length;
    }
    return shared;
  };
  const recycle = (shared: Uint8Array): void => {
    if (idleBuffers.length < IDLE_BUFFERS_PER_THREAD * size) idleBuffers.push(shared.buffer as SharedArrayBuffer);
  };

  // A dead thread is replaced when next chosen, not when it exits: a worker that cannot
  // start at all then fails each request instead of respawning in a loop.
  const threadAt = (slot: number): CipherThread => {
    if (closed) throw new Error('the segment cipher pool is closed');
    if (threads[slot]!.failed) threads[slot] = new CipherThread();
    return threads[slot]!;
  };
  const leastBusy = (): CipherThread => {
    let best = threadAt(0);
    for (let slot = 1; slot < threads.length; slot++) if (threadAt(slot).load < best.load) best = threads[slot]!;
    return best;
  };

  return {
    size,
    startEncryption(key) {
      const hashId = nextHashId++;
      const hasher = threadAt(hashId % size);
      // Own copies: posting a view clones its whole backing buffer, and an unwrapped key
      // views Buffer.concat() output, which can sit in Node's shared 8 KiB buffer pool.
      const dataKey = new Uint8Array(key.dataKey);
      const noncePrefix = new Uint8Array(key.noncePrefix);
      return {
        async seal(pieces, bytes, firstIndex, last) {
          if (bytes > BATCH_BYTES || (!last && (bytes === 0 || bytes % SEGMENT_SIZE !== 0))) {
            throw new RangeError('a batch is whole segments up to BATCH_BYTES; only the last may end short');
          }
          const sealer = leastBusy();
          const hashHere = sealer === hasher;
          const plaintext = sharedCopy(pieces, bytes);
          const [sealed] = await Promise.all([
            sealer.request({ op: 'seal', dataKey, noncePrefix, firstIndex, last, plaintext, hashId: hashHere ? hashId : undefined }),
            hashHere ? undefined : hasher.request({ op: 'hash', hashId, plaintext }),
          ]);
          // Only now have both threads finished reading it.
          recycle(plaintext);
          return Buffer.from(sealed.ciphertext!);
        },
        async digest() {
          return (await hasher.request({ op: 'digest', hashId })).digest!;
        },
        abandon() {
          hasher.request({ op: 'forget', hashId }).catch(() => {});
        },
      };
    },
    async close() {
      closed = true;
      await Promise.all(threads.map((thread) => thread.terminate()));
    },
  };
}
