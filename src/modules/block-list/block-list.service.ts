import type { Clock } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow } from '../../db/types.js';
import { changedFields, type AuditLog, type ChangeSource } from '../audit/audit.service.js';
import { normalizeDomains, normalizeEmails } from '../links/link-settings.js';
import { findBlockList, saveBlockList } from './block-list.repo.js';

export interface BlockList {
  emails: string[];
  domains: string[];
}

const parseList = (json: string) => JSON.parse(json) as string[];
const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

/** The address without its subaddress: most providers deliver `eve+x@corp.example` to `eve@corp.example`. */
const withoutSubaddress = (email: string) => email.replace(/\+[^@]*(?=@[^@]*$)/, '');

/**
 * Whether `email` (lower-case) is named by the lists: as an address, with or without a `+tag`
 * (which reaches the same mailbox, so a code sent there would reach a blocked person), or by its
 * domain or a parent domain of it.
 */
export function listsName(lists: BlockList, email: string): boolean {
  if (lists.emails.includes(email) || lists.emails.includes(withoutSubaddress(email))) return true;
  const domain = domainOf(email);
  return lists.domains.some((blocked) => domain === blocked || domain.endsWith(`.${blocked}`));
}

/** The account's block list (`GET|PUT /api/block-list`) and the one rule visitor gates ask: is this address refused on this link? */
export function createBlockListService(deps: { db: Db; clock: Clock; audit: Pick<AuditLog, 'record'> }) {
  const { db, clock, audit } = deps;

  async function get(accountId: number): Promise<BlockList> {
    const row = await findBlockList(db, accountId);
    return row ? { emails: parseList(row.emails), domains: parseList(row.domains) } : { emails: [], domains: [] };
  }

  /** Whether the account's own lists refuse `email` (lower-case): for what is the account's, not a link's (a client portal). */
  const refusesInAccount = async (accountId: number, email: string): Promise<boolean> => listsName(await get(accountId), email);

  return {
    get,

    /** Replaces the account's lists; answers them as stored (lower-cased, without duplicates). */
    async replace(source: ChangeSource, input: BlockList): Promise<BlockList> {
      const lists = { emails: normalizeEmails(input.emails, 'emails'), domains: normalizeDomains(input.domains, 'domains') };
      await db.transaction().execute(async (trx) => {
        await saveBlockList(trx, source.accountId, { emails: JSON.stringify(lists.emails), domains: JSON.stringify(lists.domains) }, clock());
        await audit.record(source, { action: 'block_list.updated', details: changedFields(lists) }, trx);
      });
      return lists;
    },

    /** Whether the link's own lists or its account's refuse `email` (lower-case). */
    async refuses(link: Pick<LinkRow, 'account_id' | 'blocked_emails' | 'blocked_domains'>, email: string): Promise<boolean> {
      if (listsName({ emails: parseList(link.blocked_emails), domains: parseList(link.blocked_domains) }, email)) return true;
      return refusesInAccount(link.account_id, email);
    },

    refusesInAccount,
  };
}

export type BlockListService = ReturnType<typeof createBlockListService>;
