import fs from 'node:fs';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import { ConfigError } from '../../config.js';
import { OWNER_ONLY_FILE, OWNER_ONLY_FOLDER } from '../../db/owner-only.js';

/** The key file's name in DATA_DIR, used when MASTER_KEY is not set. */
export const MASTER_KEY_FILE = 'master.key';

function parseKeyFile(file: string, text: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

/**
 * The key that wraps every file key and sealed secret. Taken from MASTER_KEY when given, else
 * read from DATA_DIR/master.key, which is created (mode 0600) on a fresh install only: a new key
 * beside data sealed under a lost one would start a server that can read none of it.
 */
export async function loadMasterKey(configured: Buffer | undefined, dataDir: string, isFreshInstall: () => Promise<boolean>): Promise<Buffer> {
  const found = findMasterKey(configured, dataDir);
  if (found) return found.key;
  const file = path.join(dataDir, MASTER_KEY_FILE);
  if (!(await isFreshInstall())) {
    throw new ConfigError(
      `the master key is missing: MASTER_KEY is not set and there is no ${file}, yet the database holds accounts or links sealed under a key; restore master.key from your backup or set MASTER_KEY to the original key`,
    );
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: OWNER_ONLY_FOLDER });
  try {
    // 'wx' fails if the file exists, so two processes starting together cannot both create one.
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: OWNER_ONLY_FILE, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseKeyFile(file, fs.readFileSync(file, 'utf8'));
}

/** The master key as loadMasterKey would find it, without creating one: undefined when there is none yet. */
export function findMasterKey(configured: Buffer | undefined, dataDir: string): { key: Buffer; source: 'MASTER_KEY' | 'file' } | undefined {
  if (configured) return { key: configured, source: 'MASTER_KEY' };
  const file = path.join(dataDir, MASTER_KEY_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { key: parseKeyFile(file, text), source: 'file' };
}

/** Names a key without revealing it (an HMAC, not a hash of the key): two fingerprints match only for the same key. */
export function masterKeyFingerprint(key: Buffer): string {
  return createHmac('sha256', key).update('linkvault/master-key-fingerprint').digest('hex').slice(0, 16);
}
