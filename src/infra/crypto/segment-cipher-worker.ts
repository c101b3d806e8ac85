import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { sealSegment, SEGMENT_SIZE, TAG_SIZE } from './segment-format.js';

/** Work for one thread. `plaintext` views a SharedArrayBuffer, so the sealing and the hashing thread can both read it. */
export type CipherJob =
  | { op: 'seal'; dataKey: Uint8Array; noncePrefix: Uint8Array; firstIndex: number; last: boolean; plaintext: Uint8Array; hashId?: number }
  | { op: 'hash'; hashId: number; plaintext: Uint8Array }
  | { op: 'digest'; hashId: number }
  | { op: 'forget'; hashId: number };

export interface CipherRequest {
  id: number;
  job: CipherJob;
}

export interface CipherReply {
  id: number;
  ciphertext?: ArrayBuffer;
  digest?: string;
  error?: string;
}

// One SHA-256 per file being encrypted; every batch of that file is hashed on this thread, in order.
const hashes = new Map<number, Hash>();

function hashOf(hashId: number): Hash {
  let hash = hashes.get(hashId);
  if (!hash) hashes.set(hashId, (hash = createHash('sha256')));
  return hash;
}

/** Seals the batch's segments into one buffer, which is then transferred, not copied, back. */
function sealBatch(job: Extract<CipherJob, { op: 'seal' }>): ArrayBuffer {
  const key = { dataKey: Buffer.from(job.dataKey), noncePrefix: Buffer.from(job.noncePrefix) };
  const { plaintext } = job;
  const segments = Math.max(1, Math.ceil(plaintext.length / SEGMENT_SIZE));
  const sealed = new Uint8Array(plaintext.length + segments * TAG_SIZE);
  let offset = 0;
  for (let segment = 0; segment < segments; segment++) {
    const piece = plaintext.subarray(segment * SEGMENT_SIZE, (segment + 1) * SEGMENT_SIZE);
    for (const part of sealSegment(key, job.firstIndex + segment, job.last && segment === segments - 1, [piece])) {
      sealed.set(part, offset);
      offset += part.length;
    }
  }
  return sealed.buffer;
}

function run(job: CipherJob): Omit<CipherReply, 'id'> {
  switch (job.op) {
    case 'seal':
      if (job.hashId !== undefined) hashOf(job.hashId).update(job.plaintext);
      return { ciphertext: sealBatch(job) };
    case 'hash':
      hashOf(job.hashId).update(job.plaintext);
      return {};
    case 'digest': {
      const digest = hashOf(job.hashId).digest('hex');
      hashes.delete(job.hashId);
      return { digest };
    }
    case 'forget':
      hashes.delete(job.hashId);
      return {};
  }
}

const port = parentPort;
if (!port) throw new Error('segment-cipher-worker.ts runs only as a worker thread');
port.on('message', ({ id, job }: CipherRequest) => {
  let reply: CipherReply;
  try {
    reply = { id, ...run(job) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply, reply.ciphertext ? [reply.ciphertext] : []);
});
