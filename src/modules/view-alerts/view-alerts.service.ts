import type { Clock, Executor } from '../../db/executor.js';
import { failureLevel } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { LinkRow, UserRow } from '../../db/types.js';
import { scheduledJob } from '../../core/periodic-job.js';
import type { AccountRecords } from '../accounts/account-records.js';
import { changedFields, type AuditLog, type ChangeSource } from '../audit/audit.service.js';
import { maskIp } from '../events/event-types.js';
import type { MembersService } from '../members/members.service.js';
import type { UsersService } from '../users/users.service.js';
import {
  alertedSince,
  deleteOldAlerts,
  findAlertMode,
  insertAlert,
  listDigestRecipients,
  listDigestViews,
  mailedSince,
  markDigested,
  saveAlertMode,
} from './view-alerts.repo.js';

export const VIEW_ALERT_MODES = ['each', 'daily'] as const;
export type ViewAlertMode = (typeof VIEW_ALERT_MODES)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A digest lists this many views; the rest are counted. */
const DIGEST_LISTED = 50;
const DIGEST_BATCH = 5000;
/**
 * A link's views told by e-mail of their own in an hour; the rest wait for the next daily digest. An
 * e-mail gate's address is not verified, so a stranger giving a new one each time must not be able
 * to send the maker a mail per view.
 */
const MAILS_PER_LINK_PER_HOUR = 20;

const utcDay = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
const utcMinute = (epochMs: number) => `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const utcTime = (epochMs: number) => `${new Date(epochMs).toISOString().slice(11, 16)} UTC`;

/** A view as a mail tells it: `addressUnverified` when the visitor typed the address and nothing proved it. */
interface ToldView {
  documentName: string;
  visitor: string;
  addressUnverified: boolean;
  viewedAt: string;
}

/** The mails this module sends, queued on the caller's transaction. */
export interface ViewAlertMailer {
  viewAlert(accountId: number, to: string, data: ToldView & { linkId: string }, executor: Executor): Promise<void>;
  viewDigest(accountId: number, to: string, data: { day: string; views: ToldView[]; more: number }, executor: Executor): Promise<void>;
}

/**
 * Tells a link's maker (else, or once they left, the account's address) who opened it: one e-mail per visitor and
 * link per hour, or, when the account asks, one digest per day of the previous UTC day's views; nothing to a person
 * who asked for no such e-mail (`PATCH /api/me {viewAlerts: false}`). Who hears of a link's visitors (`recipientOf`)
 * is decided here for the other mails about them too (access requests, sales), which that choice does not stop.
 */
export function createViewAlertsService(deps: {
  db: Db;
  clock: Clock;
  users: Pick<UsersService, 'byId' | 'byEmail'>;
  members: Pick<MembersService, 'roleIn'>;
  accounts: Pick<AccountRecords, 'byId'>;
  mail: ViewAlertMailer;
  audit: Pick<AuditLog, 'record'>;
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}) {
  const { db, clock, users, members, accounts, mail, audit, log } = deps;

  async function modeOf(accountId: number, executor: Executor = db): Promise<ViewAlertMode> {
    const row = await findAlertMode(executor, accountId);
    return row?.mode === 'daily' ? 'daily' : 'each';
  }

  const isEnabledMember = async (person: UserRow | undefined, accountId: number, executor: Executor = db) =>
    person !== undefined && person.disabled_at === null && (await members.roleIn(person.id, accountId, executor)) !== null;

  /** The link's maker while they are still a member, enabled; else (they left, or a key made it) the account's address. */
  async function recipientOf(link: Pick<LinkRow, 'account_id' | 'created_by'>, executor: Executor): Promise<string | undefined> {
    const maker = link.created_by === null ? undefined : await users.byId(link.created_by, executor);
    return (await isEnabledMember(maker, link.account_id, executor)) ? maker!.email : (await accounts.byId(link.account_id, executor))?.email;
  }

  /** Who hears of the views of `link`: no one when that person asked for no such e-mail. */
  async function viewRecipientOf(link: Pick<LinkRow, 'account_id' | 'created_by'>, executor: Executor): Promise<string | undefined> {
    const recipient = await recipientOf(link, executor);
    return recipient && !(await mutedBy(recipient, executor)) ? recipient : undefined;
  }

  /** Whether `address` is that of a person who asked for no e-mail about views, whichever link they are of. */
  const mutedBy = async (address: string, executor: Executor = db) => (await users.byEmail(address, executor))?.view_alerts_muted === 1;

  /**
   * Where views kept for `recipient` are told now: a maker who left or was disabled since hears no more, the
   * account's address does; undefined once the one told asked for no such e-mail.
   */
  async function recipientNow(accountId: number, recipient: string): Promise<string | undefined> {
    const account = await accounts.byId(accountId, db);
    const told =
      !account || account.email === recipient || (await isEnabledMember(await users.byEmail(recipient), accountId)) ? recipient : account.email;
    return (await mutedBy(told)) ? undefined : told;
  }

  /**
   * Sends the digests of every day before today (UTC): one mail per account, recipient and day,
   * its first views listed and all of them counted, however many there are.
   */
  async function sendDigests(): Promise<number> {
    const today = Math.floor(clock() / DAY_MS) * DAY_MS;
    let sent = 0;
    for (;;) {
      const waiting = await listDigestRecipients(db, today, DIGEST_BATCH);
      if (waiting.length === 0) break;
      // Views kept for a maker who has left since go to the account's address, with its own; views kept
      // for someone who has since asked for no such e-mail (`to` undefined) are marked told, and not mailed.
      const digests = new Map<string, { accountId: number; to: string | undefined; recipients: string[]; from: number }>();
      for (const { account_id: accountId, recipient, first_viewed_at: first } of waiting) {
        const to = await recipientNow(accountId, recipient);
        const from = Math.floor(Number(first) / DAY_MS) * DAY_MS;
        const key = `${accountId}\u0000${to ?? ''}\u0000${from}`;
        const digest = digests.get(key) ?? { accountId, to, recipients: [], from };
        digest.recipients.push(recipient);
        digests.set(key, digest);
      }
      for (const { accountId, to, recipients, from } of digests.values()) {
        const day = { accountId, recipients, from, to: from + DAY_MS };
        const mailed = await db.transaction().execute(async (trx) => {
          const listed = await listDigestViews(trx, day, DIGEST_LISTED);
          const taken = await markDigested(trx, day);
          // Another replica took them first: no second digest.
          if (taken === 0 || to === undefined) return false;
          const views = listed.slice(0, taken).map((row) => ({
            documentName: row.document_name,
            visitor: row.visitor,
            addressUnverified: row.address_unverified === 1,
            viewedAt: utcTime(row.viewed_at),
          }));
          await mail.viewDigest(accountId, to, { day: utcDay(from), views, more: taken - views.length }, trx);
          return true;
        });
        if (mailed) sent += 1;
      }
    }
    await deleteOldAlerts(db, clock() - 2 * DAY_MS);
    if (sent > 0) log.info({ digests: sent }, 'sent daily view digests');
    return sent;
  }

  return {
    mode: (accountId: number) => modeOf(accountId),
    recipientOf,

    async setMode(source: ChangeSource, mode: ViewAlertMode): Promise<ViewAlertMode> {
      await db.transaction().execute(async (trx) => {
        await saveAlertMode(trx, source.accountId, mode, clock());
        await audit.record(source, { action: 'view_alerts.updated', details: changedFields({ mode }) }, trx);
      });
      return mode;
    },

    /**
     * A visitor's view session just opened, in its transaction: tells the link's maker, unless
     * the link is quiet or this visitor's view of it was told within the hour; past the link's
     * hourly e-mails, in the next daily digest.
     */
    async viewOpened(trx: Executor, link: LinkRow, visitor: { email: string | null; emailVerified: boolean; ip: string }): Promise<void> {
      if (link.notify_on_view !== 1) return;
      const now = clock();
      const label = visitor.email ?? maskIp(visitor.ip);
      const addressUnverified = visitor.email !== null && !visitor.emailVerified;
      if (await alertedSince(trx, link.id, label, now - HOUR_MS)) return;
      const recipient = await viewRecipientOf(link, trx);
      if (!recipient) return;
      const daily =
        (await modeOf(link.account_id, trx)) === 'daily' ||
        (await mailedSince(trx, link.id, now - HOUR_MS, MAILS_PER_LINK_PER_HOUR)) >= MAILS_PER_LINK_PER_HOUR;
      await insertAlert(trx, {
        accountId: link.account_id,
        linkId: link.id,
        visitor: label,
        addressUnverified,
        recipient,
        documentName: link.name,
        viewedAt: now,
        inDigest: daily,
      });
      if (!daily)
        await mail.viewAlert(
          link.account_id,
          recipient,
          { linkId: link.id, documentName: link.name, visitor: label, addressUnverified, viewedAt: utcMinute(now) },
          trx,
        );
    },

    sendDigests,
    ...scheduledJob(sendDigests, HOUR_MS, (err) => log[failureLevel(err)]({ err }, 'view digests failed')),
  };
}

export type ViewAlertsService = ReturnType<typeof createViewAlertsService>;
