import { randomBytes } from 'node:crypto';
import { openBox, sealBox } from './aead-box.js';

const DATA_KEY_SIZE = 32;
export const NONCE_PREFIX_SIZE = 7;
const FILE_KEY_PURPOSE = 'linkvault/file-key';

/** The per-file secret: the AES-256 data key and the prefix of every segment nonce. */
export interface FileKey {
  dataKey: Buffer;
  noncePrefix: Buffer;
}

export function newFileKey(): FileKey {
  return { dataKey: randomBytes(DATA_KEY_SIZE), noncePrefix: randomBytes(NONCE_PREFIX_SIZE) };
}

/** The form stored in the database: `v1.<nonce>.<ciphertext+tag>` under the master key. */
export function wrapFileKey(masterKey: Buffer, key: FileKey): string {
  if (key.dataKey.length !== DATA_KEY_SIZE || key.noncePrefix.length !== NONCE_PREFIX_SIZE) {
    throw new Error('a file key is a 32-byte data key and a 7-byte nonce prefix');
  }
  return sealBox(masterKey, Buffer.concat([key.dataKey, key.noncePrefix]), FILE_KEY_PURPOSE);
}

export function unwrapFileKey(masterKey: Buffer, wrapped: string): FileKey {
  const material = openBox(masterKey, wrapped, FILE_KEY_PURPOSE);
  if (material.length !== DATA_KEY_SIZE + NONCE_PREFIX_SIZE) throw new Error('wrapped file key has the wrong length');
  return { dataKey: material.subarray(0, DATA_KEY_SIZE), noncePrefix: material.subarray(DATA_KEY_SIZE) };
}
