/**
 * Hands a large buffer's memory back at once instead of at V8's next full collection. Memory
 * outside V8's heap (what sharp decodes into) counts towards a limit: each time some 64 MB more
 * of it is held, V8 runs a full collection. A stamped page passes a 10 MB decoded copy through
 * JavaScript, so without this twenty visitors paging cost a full collection every few pages.
 * Detaching the buffer frees its memory and lowers that count now.
 *
 * Only for a buffer that owns its whole memory (not a slice of Node's shared pool) and that
 * nothing reads after this call: it is left empty.
 */
export function releaseBuffer(bytes: Uint8Array): void {
  const memory = bytes.buffer;
  if (!(memory instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== memory.byteLength) return;
  memory.transfer(0);
}
