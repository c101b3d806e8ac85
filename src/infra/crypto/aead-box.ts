import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const NONCE_SIZE = 12;
const TAG_SIZE = 16;

/**
 * AES-256-GCM of a small value under the master key, as `v1.<nonce>.<ciphertext+tag>`
 * (base64url). `purpose` is bound as AAD, so a box made for one use never opens as another.
 */
export function sealBox(masterKey: Buffer, plaintext: Buffer, purpose: string): string {
  assertMasterKey(masterKey);
  const nonce = randomBytes(NONCE_SIZE);
  const cipher = createCipheriv('aes-256-gcm', masterKey, nonce);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
}

/** Throws when the box was altered, made under another key, or made for another purpose. */
export function openBox(masterKey: Buffer, box: string, purpose: string): Buffer {
  assertMasterKey(masterKey);
  const [version, nonceText, bodyText, ...rest] = box.split('.');
  if (version !== VERSION || nonceText === undefined || bodyText === undefined || rest.length > 0) {
    throw new Error(`not a ${VERSION} sealed value`);
  }
  const nonce = decodeCanonical(nonceText);
  const body = decodeCanonical(bodyText);
  if (nonce.length !== NONCE_SIZE || body.length < TAG_SIZE) throw new Error('malformed sealed value');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, nonce);
  decipher.setAAD(Buffer.from(purpose, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - TAG_SIZE));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_SIZE)), decipher.final()]);
  } catch {
    throw new Error('sealed value failed authentication (altered, wrong key or wrong context)');
  }
}

// Node's base64url decoder skips invalid characters and ignores trailing bits, so two
// different strings can decode to the same bytes; only the canonical spelling is accepted.
function decodeCanonical(text: string): Buffer {
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.toString('base64url') !== text) throw new Error('malformed sealed value');
  return bytes;
}

function assertMasterKey(masterKey: Buffer): void {
  if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
}
