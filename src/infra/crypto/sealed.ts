import { openBox, sealBox } from './aead-box.js';

// The NUL keeps every context apart from the file-key purpose and from each other's prefixes.
const purposeOf = (context: string) => `linkvault/sealed\0${context}`;

/**
 * Encrypts a secret for a database column (SMTP password, webhook URL). `context` names
 * where the value belongs, e.g. `branding.smtp_password:<accountId>`: a sealed value
 * copied to another column or account no longer opens.
 */
export function seal(masterKey: Buffer, plaintext: string, context: string): string {
  return sealBox(masterKey, Buffer.from(plaintext, 'utf8'), purposeOf(context));
}

export function unseal(masterKey: Buffer, sealed: string, context: string): string {
  return openBox(masterKey, sealed, purposeOf(context)).toString('utf8');
}
