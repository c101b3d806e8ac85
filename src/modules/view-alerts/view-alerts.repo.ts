import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../../db/executor.js';
import type { Database } from '../../db/types.js';

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

/** Who has views waiting for a digest, seen before `before`, with the first of them (its day is the next digest). */
export function listDigestRecipients(db: Executor, before: number, limit: number) {
  return db
    .selectFrom('view_alerts')
    .select(['account_id', 'recipient', (eb) => eb.fn.min<number>('viewed_at').as('first_viewed_at')])
    .where('in_digest', '=', 1)
    .where('viewed_at', '<', before)
    .groupBy(['account_id', 'recipient'])
    .orderBy('account_id')
    .orderBy('recipient')
    .limit(limit)
    .execute();
}

interface DigestDay {
  accountId: number;
  recipients: readonly string[];
  from: number;
  to: number;
}

/** The views of a digest's day still waiting for it. */
const waitingOn = (day: DigestDay) => (eb: ExpressionBuilder<Database, 'view_alerts'>) =>
  eb.and([
    eb('account_id', '=', day.accountId),
    eb('recipient', 'in', day.recipients),
    eb('in_digest', '=', 1),
    eb('viewed_at', '>=', day.from),
    eb('viewed_at', '<', day.to),
  ]);

/** The first `limit` views of a digest's day, oldest first. */
export function listDigestViews(db: Executor, day: DigestDay, limit: number) {
  return db
    .selectFrom('view_alerts')
    .select(['visitor', 'address_unverified', 'document_name', 'viewed_at'])
    .where(waitingOn(day))
    .orderBy('viewed_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Takes a digest's day out of the queue; answers how many views this call took (none when a replica took them first). */
export async function markDigested(db: Executor, day: DigestDay): Promise<number> {
  const result = await db.updateTable('view_alerts').set({ in_digest: 0 }).where(waitingOn(day)).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Told alerts older than `before` only served the hourly limit: they go. */
export async function deleteOldAlerts(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('view_alerts').where('in_digest', '=', 0).where('viewed_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
