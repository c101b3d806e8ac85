import type { Executor } from '../../db/executor.js';

export function findAlertMode(db: Executor, accountId: number) {
  return db.selectFrom('view_alert_settings').select('mode').where('account_id', '=', accountId).executeTakeFirst();
}

export async function saveAlertMode(db: Executor, accountId: number, mode: string, now: number): Promise<void> {
  await db
    .insertInto('view_alert_settings')
    .values({ account_id: accountId, mode, updated_at: now })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ mode, updated_at: now }))
    .execute();
}

/** Whether this visitor's view of the link was already told since `since`. */
export async function alertedSince(db: Executor, linkId: string, visitor: string, since: number): Promise<boolean> {
  const row = await db
    .selectFrom('view_alerts')
    .select('id')
    .where('link_id', '=', linkId)
    .where('visitor', '=', visitor)
    .where('viewed_at', '>', since)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** How many of the link's views were told by their own e-mail since `since`, counting up to `atMost`. */
export async function mailedSince(db: Executor, linkId: string, since: number, atMost: number): Promise<number> {
  const rows = await db
    .selectFrom('view_alerts')
    .select('id')
    .where('link_id', '=', linkId)
    .where('viewed_at', '>', since)
    .where('in_digest', '=', 0)
    .limit(atMost)
    .execute();
  return rows.length;
}

export async function insertAlert(
  db: Executor,
  alert: {
    accountId: number;
    linkId: string;
    visitor: string;
    addressUnverified: boolean;
    recipient: string;
    documentName: string;
    viewedAt: number;
    inDigest: boolean;
  },
): Promise<void> {
  await db
    .insertInto('view_alerts')
    .values({
      account_id: alert.accountId,
      link_id: alert.linkId,
      visitor: alert.visitor,
      address_unverified: Number(alert.addressUnverified),
      recipient: alert.recipient,
      document_name: alert.documentName,
      viewed_at: alert.viewedAt,
      in_digest: Number(alert.inDigest),
    })
    .execute();
}

/** Views waiting for a digest, seen before `before`, oldest first. */
export function listDigestDue(db: Executor, before: number, limit: number) {
  return db
    .selectFrom('view_alerts')
    .select(['id', 'account_id', 'recipient', 'visitor', 'address_unverified', 'document_name', 'viewed_at'])
    .where('in_digest', '=', 1)
    .where('viewed_at', '<', before)
    .orderBy('viewed_at')
    .limit(limit)
    .execute();
}

/** Takes views out of the digest queue; answers how many this call took (a replica racing it takes the rest). */
export async function markDigested(db: Executor, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db.updateTable('view_alerts').set({ in_digest: 0 }).where('id', 'in', ids).where('in_digest', '=', 1).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Told alerts older than `before` only served the hourly limit: they go. */
export async function deleteOldAlerts(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('view_alerts').where('in_digest', '=', 0).where('viewed_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
