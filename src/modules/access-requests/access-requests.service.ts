import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { AccessRequestRow, LinkRow } from '../../db/types.js';
import { notFound, unprocessable } from '../../core/errors.js';
import { isoTime } from '../../core/timestamps.js';
import type { AuditLog, ChangeSource } from '../audit/audit.service.js';
import type { EventRecorder } from '../events/events.service.js';
import type { LinksService } from '../links/links.service.js';
import {
  countPendingRequests,
  decideAccessRequest,
  findAccessRequest,
  insertAccessRequest,
  listAccessRequests,
  listPendingRequests,
  type NewAccessRequest,
} from './access-requests.repo.js';

/** The stored flag as the API tells it: unknown (null) for a request made before it was recorded. */
const verifiedOf = (flag: number | null) => (flag === null ? null : flag === 1);

/**
 * The visitor's side of the approval gate, as the visits module uses it: open a request in the
 * visit's transaction, and read one back. Needs no other service, so the visits service can have it.
 */
export function createAccessRequestRecords(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    find: (requestId: number, executor: Executor = db) => findAccessRequest(executor, requestId),
    open: (trx: Executor, request: NewAccessRequest) => insertAccessRequest(trx, request),
    pendingCount: (accountId: number) => countPendingRequests(db, accountId, clock()),
  };
}

export type AccessRequestRecords = ReturnType<typeof createAccessRequestRecords>;

export type Decision = 'approved' | 'denied';

export interface DecisionNotifier {
  /** Queues the mail on `executor`, the decision's transaction. */
  accessDecided(link: LinkRow, request: AccessRequestRow, decision: Decision, executor: Executor): Promise<void>;
}

/** The owner's side of the approval gate. */
export function createAccessRequestsService(deps: {
  db: Db;
  clock: Clock;
  links: Pick<LinksService, 'ownLink'>;
  notify: DecisionNotifier;
  events: EventRecorder;
  audit: Pick<AuditLog, 'record'>;
}) {
  const { db, clock, links, notify, events, audit } = deps;

  /** The live link whose requests are asked for: 404, 410 once expired, 422 when it asks for no approval. */
  async function linkRequiringApproval(accountId: number, linkId: string): Promise<LinkRow> {
    const link = await links.ownLink(accountId, linkId, { live: true });
    if (link.requires_approval !== 1) throw unprocessable('This link does not require approval');
    return link;
  }

  return {
    /**
     * Requests waiting for an answer over all the account's links (the dashboard's Requests screen):
     * those of live links that still ask for approval, the only ones an owner can answer.
     */
    async pending(accountId: number, limit: number) {
      const requests = await listPendingRequests(db, accountId, clock(), limit);
      return requests.map((request) => ({
        id: request.id,
        linkId: request.link_id,
        linkName: request.link_name,
        email: request.email,
        emailVerified: verifiedOf(request.email_verified),
        visitorIp: request.visitor_ip,
        created_at: isoTime(request.created_at),
      }));
    },

    async list(accountId: number, linkId: string) {
      await linkRequiringApproval(accountId, linkId);
      const requests = await listAccessRequests(db, linkId);
      return requests.map((request) => ({
        id: request.id,
        visitorIp: request.visitor_ip,
        status: request.status,
        email: request.email,
        emailVerified: verifiedOf(request.email_verified),
        created_at: isoTime(request.created_at),
      }));
    },

    async decide(source: ChangeSource, linkId: string, requestId: number, decision: Decision): Promise<Decision> {
      const { accountId } = source;
      const link = await linkRequiringApproval(accountId, linkId);
      await db.transaction().execute(async (trx) => {
        if (!(await decideAccessRequest(trx, linkId, requestId, decision, clock()))) {
          // The same decision again (a second click, a retry): the visitor and the owner were told once.
          if ((await findAccessRequest(trx, requestId))?.link_id === linkId) return;
          throw notFound(`Access request ${requestId}`);
        }
        const decided = (await findAccessRequest(trx, requestId))!;
        await events.record(trx, {
          accountId,
          type: decision === 'approved' ? 'access.approved' : 'access.denied',
          linkId,
          payload: {
            linkName: link.name,
            email: decided.email,
            // Unknown for a request made before it was recorded: told as it used to be.
            emailVerified: verifiedOf(decided.email_verified) ?? undefined,
            ip: decided.visitor_ip,
          },
        });
        await audit.record(
          source,
          {
            action: 'access_request.decided',
            target: { type: 'access_request', id: requestId },
            details: { decision, email: decided.email, linkId },
          },
          trx,
        );
        await notify.accessDecided(link, decided, decision, trx);
      });
      return decision;
    },

    pendingCount: (accountId: number) => countPendingRequests(db, accountId, clock()),
  };
}

export type AccessRequestsService = ReturnType<typeof createAccessRequestsService>;
