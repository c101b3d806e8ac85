import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { notFound, unprocessable } from '../../core/errors.js';
import { AREA_PLAN } from '../../core/plans.js';
import { isoTime } from '../../core/timestamps.js';
import { seal } from '../../infra/crypto/sealed.js';
import type { AccountRecords } from '../accounts/account-records.js';
import type { AuditLog, ChangeSource } from '../audit/audit.service.js';
import {
  countIntegrations,
  deleteIntegration,
  findIntegrationTarget,
  insertIntegration,
  listEnabledIntegrationIds,
  listIntegrations,
  type IntegrationType,
} from './integrations.repo.js';
import { assertProviderWebhookUrl, webhookUrlContext } from './webhook-url.js';

/** An integration as a post to it needs it: where (sealed), which service, which channel. */
export interface ChatTarget {
  accountId: number;
  type: IntegrationType;
  channel: string;
  webhookUrlSealed: string;
}

/** Each event fans out to every integration of the account: keep the fan-out small. */
export const MAX_INTEGRATIONS_PER_ACCOUNT = 20;

/** Chat integrations (Slack, Teams) that receive the account's events. */
export function createIntegrationsService(deps: {
  db: Db;
  clock: Clock;
  masterKey: Buffer;
  allowPrivateWebhooks: boolean;
  accounts: Pick<AccountRecords, 'lock' | 'hasPlan'>;
  audit: Pick<AuditLog, 'record'>;
  /** Posts the test message at once (chat-delivery.ts); throws with the service's answer. */
  sendTestMessage: (target: ChatTarget) => Promise<void>;
}) {
  const { db, clock, masterKey, allowPrivateWebhooks, accounts, audit, sendTestMessage } = deps;
  return {
    /**
     * The account's enabled integrations, read in the event's transaction: each gets a delivery. None
     * below the business plan (integrations are of it): moved lower, they rest until it is back.
     */
    async enabledIds(accountId: number, executor: Executor = db): Promise<number[]> {
      return (await accounts.hasPlan(accountId, AREA_PLAN.integrations, executor)) ? listEnabledIntegrationIds(executor, accountId) : [];
    },

    /** Where a delivery goes, or undefined once the integration is deleted. */
    async deliveryTarget(integrationId: number, executor: Executor = db) {
      const row = await findIntegrationTarget(executor, integrationId);
      return (
        row && {
          id: row.id,
          accountId: row.account_id,
          type: row.type,
          channel: row.channel,
          webhookUrlSealed: row.webhook_url_sealed,
          enabled: row.enabled === 1,
        }
      );
    },

    async list(accountId: number) {
      const rows = await listIntegrations(db, accountId);
      return rows.map((row) => ({
        id: row.id,
        type: row.type,
        enabled: row.enabled === 1,
        channel: row.channel,
        created_at: isoTime(Number(row.created_at)),
      }));
    },

    async create(source: ChangeSource, input: { type: IntegrationType; webhookUrl: string; channel: string }): Promise<number> {
      const { accountId } = source;
      const webhookUrl = assertProviderWebhookUrl(input.type, input.webhookUrl.trim(), allowPrivateWebhooks);
      const channel = input.channel.trim();
      return db.transaction().execute(async (trx) => {
        await accounts.lock(trx, accountId);
        if ((await countIntegrations(trx, accountId)) >= MAX_INTEGRATIONS_PER_ACCOUNT) {
          throw unprocessable(`An account may hold at most ${MAX_INTEGRATIONS_PER_ACCOUNT} integrations; delete one first`);
        }
        const id = await insertIntegration(trx, {
          accountId,
          type: input.type,
          channel,
          webhookUrlSealed: seal(masterKey, webhookUrl, webhookUrlContext(accountId)),
          now: clock(),
        });
        // The webhook URL is a secret (sealed at rest): the entry names the integration, never its URL.
        await audit.record(
          source,
          { action: 'integration.created', target: { type: 'integration', id }, details: { type: input.type, channel } },
          trx,
        );
        return id;
      });
    },

    /** Posts a test message to the account's integration now; 422 with the chat service's answer when it refuses. */
    async sendTest(accountId: number, id: number): Promise<void> {
      const target = await this.deliveryTarget(id);
      if (!target || target.accountId !== accountId) throw notFound(`Integration ${id}`);
      try {
        await sendTestMessage(target);
      } catch (error) {
        throw unprocessable(`The test message was not delivered: ${(error as Error).message}`);
      }
    },

    async remove(source: ChangeSource, id: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const deleted = await deleteIntegration(trx, source.accountId, id);
        if (!deleted) throw notFound(`Integration ${id}`);
        await audit.record(source, { action: 'integration.deleted', target: { type: 'integration', id }, details: deleted }, trx);
      });
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
