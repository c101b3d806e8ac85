import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

const KEY_FILE = 'master.key';

/**
 * The key that wraps every file key and sealed secret. Taken from MASTER_KEY when given,
 * else read from (or, on first start, created in) DATA_DIR/master.key with mode 0600.
 */
export function loadMasterKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured;
  const file = path.join(dataDir, KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // 'wx' fails if the file exists, so two processes starting together cannot both create one.
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}
