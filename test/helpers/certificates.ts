import { execFile } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';

/**
 * A self-signed certificate whose subject alternative names are exactly `altNames`
 * (`DNS:localhost`, `IP:127.0.0.1`), made by openssl; undefined when openssl is missing.
 */
export async function selfSignedCertificate(
  t: TestContext,
  commonName: string,
  altNames: string[],
): Promise<{ key: string; cert: string } | undefined> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'linkvault-cert-'));
  t.after(() => fsp.rm(dir, { recursive: true, force: true }));
  const [keyFile, certFile] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      `subjectAltName=${altNames.join(',')}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]);
  } catch {
    return undefined;
  }
  return { key: await fsp.readFile(keyFile, 'utf8'), cert: await fsp.readFile(certFile, 'utf8') };
}
