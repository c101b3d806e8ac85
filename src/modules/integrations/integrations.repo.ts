import type { Executor } from '../../db/executor.js';
import type { IntegrationsTable } from '../../db/types.js';

export type IntegrationType = IntegrationsTable['type'];

export function listIntegrations(db: Executor, accountId: number) {
  return db
    .selectFrom('integrations')
    .select(['id', 'type', 'enabled', 'channel', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

export async function countIntegrations(db: Executor, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('integrations')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertIntegration(
  db: Executor,
  integration: { accountId: number; type: IntegrationType; channel: string; webhookUrlSealed: string; now: number },
): Promise<number> {
  const row = await db
    .insertInto('integrations')
    .values({
      account_id: integration.accountId,
      type: integration.type,
      channel: integration.channel,
      webhook_url_sealed: integration.webhookUrlSealed,
      created_at: integration.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes the account's integration (its pending deliveries go with it); false if it has none with this id. */
/** Answers the type and channel of the integration deleted, or undefined when the account has none with this id. */
export function deleteIntegration(db: Executor, accountId: number, id: number) {
  return db.deleteFrom('integrations').where('id', '=', id).where('account_id', '=', accountId).returning(['type', 'channel']).executeTakeFirst();
}

/** The ids of the account's enabled integrations: an event gets one delivery for each. */
export async function listEnabledIntegrationIds(db: Executor, accountId: number): Promise<number[]> {
  const rows = await db.selectFrom('integrations').select('id').where('account_id', '=', accountId).where('enabled', '=', 1).execute();
  return rows.map((row) => row.id);
}

/** Where a delivery goes: the integration's type, channel and sealed webhook URL. */
export function findIntegrationTarget(db: Executor, id: number) {
  return db
    .selectFrom('integrations')
    .select(['id', 'account_id', 'type', 'channel', 'webhook_url_sealed', 'enabled'])
    .where('id', '=', id)
    .executeTakeFirst();
}
