import { useState } from 'preact/hooks';

/**
 * One name for one change the person means to make (what a dialog creates), sent as its
 * Idempotency-Key: a retry after an answer lost on the way (a dropped connection, a restart) gets
 * the first result instead of making a second copy. getRandomValues, not randomUUID, which needs HTTPS.
 */
export function useRequestKey(): string {
  const [key] = useState(() => Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join(''));
  return key;
}
