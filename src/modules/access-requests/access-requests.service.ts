import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { AccessRequestRow, LinkRow } from '../../db/types.js';
import { notFound, unprocessable } from '../../core/errors.js';
import type { LinksService } from '../links/links.service.js';
import { countPendingRequests, decideAccessRequest, findAccessRequest, listAccessRequests } from './access-requests.repo.js';

export type Decision = 'approved' | 'denied';

export interface DecisionNotifier {
  accessDecided(link: LinkRow, request: AccessRequestRow, decision: Decision): Promise<void>;
}

/** The owner's side of the approval gate. */
export function createAccessRequestsService(deps: { db: Db; clock: Clock; links: Pick<LinksService, 'ownLink'>; notify: DecisionNotifier }) {
  const { db, clock, links, notify } = deps;

  async function linkRequiringApproval(accountId: number, linkId: string): Promise<LinkRow> {
    const link = await links.ownLink(accountId, linkId, { live: false });
    if (link.requires_approval !== 1) throw unprocessable('This link does not require approval');
    return link;
  }

  return {
    async list(accountId: number, linkId: string) {
      await linkRequiringApproval(accountId, linkId);
      const requests = await listAccessRequests(db, linkId);
      return requests.map((request) => ({
        id: request.id,
        visitorIp: request.visitor_ip,
        status: request.status,
        email: request.email,
        created_at: new Date(request.created_at).toISOString(),
      }));
    },

    async decide(accountId: number, linkId: string, requestId: number, decision: Decision): Promise<Decision> {
      const link = await linkRequiringApproval(accountId, linkId);
      if (!(await decideAccessRequest(db, linkId, requestId, decision, clock()))) throw notFound(`Access request ${requestId}`);
      await notify.accessDecided(link, (await findAccessRequest(db, requestId))!, decision);
      return decision;
    },

    pendingCount: (accountId: number) => countPendingRequests(db, accountId),
  };
}

export type AccessRequestsService = ReturnType<typeof createAccessRequestsService>;
