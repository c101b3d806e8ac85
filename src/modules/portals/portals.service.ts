import type { Selectable } from 'kysely';
import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { IdempotencyService } from '../idempotency/idempotency.service.js';
import type { PortalsTable } from '../../db/types.js';
import { notFound, unprocessable } from '../../core/errors.js';
import { recordName } from '../../core/text.js';
import { randomBase62 } from '../../infra/crypto/tokens.js';
import { normalizeEmails } from '../links/link-settings.js';
import { toLinkMetadata, type LinksService } from '../links/links.service.js';
import {
  deletePortal,
  deletePortalLink,
  findPortal,
  insertPortal,
  insertPortalLinks,
  listPortalLinks,
  listPortals,
  updatePortal,
} from './portals.repo.js';

/** Lower-case letters, digits and hyphens, 3-63 characters: it is a path segment of the portal's URL. */
export const PORTAL_SLUG_PATTERN = '^[a-z0-9-]{3,63}$';

export const portalAllowedEmails = (portal: Pick<Selectable<PortalsTable>, 'allowed_emails'>) => JSON.parse(portal.allowed_emails) as string[];

const slugTaken = (slug: string) => unprocessable(`The slug "${slug}" is already taken; choose another`);

/** The owner's side of client portals: a named address listing some of the account's links. */
export function createPortalsService(deps: {
  db: Db;
  clock: Clock;
  viewerBase: (accountId: number) => Promise<string>;
  links: Pick<LinksService, 'ownIds'>;
  idempotency: Pick<IdempotencyService, 'once'>;
}) {
  const { db, clock, viewerBase, links, idempotency } = deps;
  /** Beside the account's viewer links: on its custom domain when it has one. */
  const portalUrl = async (accountId: number, slug: string) => `${await viewerBase(accountId)}/p/${slug}`;

  async function ownPortal(accountId: number, id: string) {
    const portal = await findPortal(db, accountId, id);
    if (!portal) throw notFound(`Portal ${id}`);
    return portal;
  }

  return {
    async list(accountId: number) {
      const [base, portals] = await Promise.all([viewerBase(accountId), listPortals(db, accountId)]);
      return portals.map((portal) => ({ ...portal, url: `${base}/p/${portal.slug}` }));
    },

    /** A new portal; with an `Idempotency-Key`, a retry within 24 hours answers the first one instead of making another. */
    create(accountId: number, input: { name: string; slug: string; allowedEmails?: string[] }, idempotencyKey?: string) {
      return idempotency.once<{ ok: boolean; id: string; url: string }>(accountId, idempotencyKey, 'portal:create', async (recordAnswer) => {
        const id = randomBase62(22);
        const allowedEmails = JSON.stringify(normalizeEmails(input.allowedEmails ?? [], 'allowedEmails'));
        const created = { ok: true, id, url: await portalUrl(accountId, input.slug) };
        await db.transaction().execute(async (trx) => {
          const inserted = await insertPortal(trx, {
            id,
            account_id: accountId,
            name: recordName(input.name, 'A portal name'),
            slug: input.slug,
            allowed_emails: allowedEmails,
            created_at: clock(),
          });
          if (!inserted) throw slugTaken(input.slug);
          await recordAnswer?.(trx, created);
        });
        return created;
      });
    },

    async get(accountId: number, id: string) {
      const portal = await ownPortal(accountId, id);
      return {
        id: portal.id,
        name: portal.name,
        slug: portal.slug,
        url: await portalUrl(accountId, portal.slug),
        allowedEmails: portalAllowedEmails(portal),
        links: (await listPortalLinks(db, portal.id)).map(toLinkMetadata),
      };
    },

    async update(accountId: number, id: string, input: { name?: string; slug?: string; allowedEmails?: string[] }) {
      const allowedEmails = input.allowedEmails && JSON.stringify(normalizeEmails(input.allowedEmails, 'allowedEmails'));
      const name = input.name === undefined ? undefined : recordName(input.name, 'A portal name');
      const patch = { name, slug: input.slug, allowed_emails: allowedEmails };
      if (Object.values(patch).every((value) => value === undefined)) {
        await ownPortal(accountId, id); // nothing to change, but another account's id is still a 404
        return;
      }
      const outcome = await updatePortal(db, accountId, id, patch);
      if (outcome === 'not-found') throw notFound(`Portal ${id}`);
      if (outcome === 'slug-taken') throw slugTaken(input.slug!);
    },

    /** The portal goes, with its sessions; its links stay. */
    async remove(accountId: number, id: string) {
      if (!(await deletePortal(db, accountId, id))) throw notFound(`Portal ${id}`);
    },

    async assignLinks(accountId: number, id: string, linkIds: string[]) {
      const portal = await ownPortal(accountId, id);
      const wanted = [...new Set(linkIds)];
      await db.transaction().execute(async (trx) => {
        const found = await links.ownIds(accountId, wanted, trx);
        const missing = wanted.find((linkId) => !found.has(linkId));
        if (missing !== undefined) throw notFound(`Link ${missing}`);
        await insertPortalLinks(trx, portal.id, wanted, clock());
      });
    },

    async unassignLink(accountId: number, id: string, linkId: string) {
      const portal = await ownPortal(accountId, id);
      if (!(await deletePortalLink(db, portal.id, linkId))) throw notFound(`Link ${linkId} in portal ${id}`);
    },
  };
}

export type PortalsService = ReturnType<typeof createPortalsService>;
