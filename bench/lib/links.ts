import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';

const DAY = 86_400_000;
const SEED_BATCH = 50_000;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 22 random base62 characters, like links.newLinkId() (rejection sampling, no bias). */
function linkId(): string {
  let id = '';
  while (id.length < 22) {
    for (const byte of randomBytes(32)) {
      if (byte < 248) id += BASE62[byte % 62];
      if (id.length === 22) break;
    }
  }
  return id;
}

/**
 * `count` file links of one account, created over the last 8 days and expiring 7 days after,
 * with realistic row sizes, in transactions of 50 000; with the counts the app keeps beside
 * them (link_counts), and the expired ones already filed, noticed and purged as the app's lists
 * and sweepers would have left them. Returns how many are active at `now`.
 */
export function seedLinks(file: string, accountId: number, count: number, now: number): number {
  const db = new SQLite(file);
  let active = 0;
  try {
    const insert = db.prepare(
      `INSERT INTO links (id, account_id, kind, name, mime, version, blob_key, wrapped_key, size, sha256, created_at, expires_at, expiry_noticed_at, blob_purged_at, in_expired_tab)
       VALUES (?, ?, 'file', ?, 'application/pdf', 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const spacing = (8 * DAY) / count;
    const batch = db.transaction((from: number, to: number) => {
      for (let n = from; n < to; n++) {
        const id = linkId();
        const createdAt = Math.floor(now - 8 * DAY + n * spacing);
        const expiresAt = createdAt + 7 * DAY;
        const expired = expiresAt <= now;
        if (!expired) active++;
        insert.run(
          id,
          accountId,
          `Quarterly report ${n + 1}.pdf`,
          `links/${id}/v1-${id.slice(0, 8)}`,
          randomBytes(60).toString('base64'),
          100_000 + n,
          randomBytes(32).toString('hex'),
          createdAt,
          expiresAt,
          expired ? expiresAt : null,
          expired ? now : null,
          Number(expired),
        );
      }
    });
    for (let from = 0; from < count; from += SEED_BATCH) batch(from, Math.min(count, from + SEED_BATCH));
    db.transaction(() => {
      db.prepare('INSERT INTO link_counts (account_id, links, expired) VALUES (?, ?, ?)').run(accountId, count, count - active);
    })();
  } finally {
    db.close();
  }
  return active;
}
