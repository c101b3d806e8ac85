import type { Principal } from '../../core/auth.js';
import { AppError, conflict, notFound } from '../../core/errors.js';
import { assertMayAct, mayAct, roleOf, type Area, type Role } from '../../core/permissions.js';
import { isoTime } from '../../core/timestamps.js';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { InvitationRow } from '../../db/types.js';
import { randomBase62, sha256Hex } from '../../infra/crypto/tokens.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import type { AuditLog, ChangeSource } from '../audit/audit.service.js';
import { newPersonEmail, normalizeEmail } from '../users/users.service.js';
import {
  deleteInvitation,
  deletePendingInvitationsTo,
  findInvitationByTokenHash,
  findMembership,
  findMembershipByEmail,
  findPendingInvitation,
  findPendingInvitationByEmail,
  insertInvitation,
  listPendingInvitations,
  markInvitationAccepted,
} from './members.repo.js';

export const INVITATION_DAYS = 7;
const DAY_MS = 86_400_000;
const INVITATION_TOKEN = /^[0-9A-Za-z]{43}$/;

export interface InvitationNotifier {
  invitation(
    to: string,
    data: { accountId: number; inviterName: string; role: Role; acceptUrl: string; days: number },
    executor: Executor,
  ): Promise<void>;
}

export interface Invitation {
  accountId: number;
  email: string;
  role: Role;
}

/** Inviting someone as an owner is managing owners; any other invitation is managing members. */
function areaOfInvitation(role: Role): Area {
  return role === 'owner' ? 'owners' : 'members';
}

/**
 * Invitations to join an account: a hashed single-use token, seven days, mailed to the person.
 * An invitation stands only while its inviter could still make it: it is withdrawn when they
 * leave the account or take a role that could not have made it, and checked again when it is
 * used, since an invitation made while its inviter was being removed escapes the withdrawal.
 */
export function createInvitationsService(deps: {
  db: Db;
  clock: Clock;
  publicUrl: string;
  audit: AuditLog;
  notify: InvitationNotifier;
  /** An invitation made with a key is made by the key's maker. */
  apiKeys: Pick<ApiKeysService, 'personBehind'>;
}) {
  const { db, clock, publicUrl, audit, notify, apiKeys } = deps;
  const view = (row: { id: number; email: string; role: string; created_at: number; expires_at: number; invited_by: number | null }) => ({
    id: row.id,
    email: row.email,
    role: roleOf(row.role),
    invitedBy: row.invited_by,
    createdAt: isoTime(row.created_at),
    expiresAt: isoTime(row.expires_at),
  });

  /** Whether the person who made it (none: the command line) could still make it now. */
  async function inviterStillMay(invitation: InvitationRow, executor: Executor): Promise<boolean> {
    if (invitation.invited_by === null) return true;
    const inviter = await findMembership(executor, invitation.invited_by, invitation.account_id);
    return inviter !== undefined && mayAct(roleOf(inviter.role), areaOfInvitation(roleOf(invitation.role)));
  }

  /**
   * Withdraws the account's pending invitations to `email`, in the transaction of what made them
   * pointless: the person joined by one of them (no audit entry of their own: the joining has one),
   * was removed, or was invited again. Answers the invitations it withdrew.
   */
  async function withdrawTo(
    source: ChangeSource | null,
    accountId: number,
    email: string,
    reason: 'invited_again' | 'member_removed' | 'joined',
    executor: Executor,
  ) {
    const withdrawn = await deletePendingInvitationsTo(executor, accountId, email);
    for (const invitation of withdrawn) {
      if (!source) continue;
      await audit.record(
        source,
        {
          action: 'invitation.withdrawn',
          target: { type: 'invitation', id: invitation.id },
          details: { email, role: roleOf(invitation.role), reason },
        },
        executor,
      );
    }
    return withdrawn;
  }

  return {
    async invite(principal: Principal, input: { email: string; role: Role }) {
      assertMayAct(principal.role, areaOfInvitation(input.role));
      const email = newPersonEmail(input.email);
      const token = randomBase62(43);
      const now = clock();
      return db.transaction().execute(async (trx) => {
        if (await findMembershipByEmail(trx, principal.accountId, email)) throw conflict(`${email} is already a member of this account`);
        // Inviting an address again replaces its pending invitation (a resend), so one address never holds two;
        // one the caller could not withdraw refuses the whole change, which the transaction then takes back.
        for (const replaced of await withdrawTo(principal, principal.accountId, email, 'invited_again', trx)) {
          if (replaced.expires_at <= now) continue;
          const invitedAs = roleOf(replaced.role);
          assertMayAct(principal.role, areaOfInvitation(invitedAs), `Replacing the invitation of ${email} to join as ${invitedAs}`);
        }
        const invitedBy = await apiKeys.personBehind(principal, trx);
        const id = await insertInvitation(trx, {
          accountId: principal.accountId,
          email,
          role: input.role,
          tokenHash: sha256Hex(token),
          invitedBy,
          createdAt: now,
          expiresAt: now + INVITATION_DAYS * DAY_MS,
        });
        const acceptUrl = `${publicUrl}/invite/${token}`;
        await notify.invitation(
          email,
          { accountId: principal.accountId, inviterName: principal.actor.label, role: input.role, acceptUrl, days: INVITATION_DAYS },
          trx,
        );
        await audit.record(principal, { action: 'member.invited', target: { type: 'invitation', id }, details: { email, role: input.role } }, trx);
        return view({
          id,
          email,
          role: input.role,
          created_at: now,
          expires_at: now + INVITATION_DAYS * DAY_MS,
          invited_by: invitedBy,
        });
      });
    },

    async list(accountId: number) {
      return (await listPendingInvitations(db, accountId, clock())).map(view);
    },

    async withdraw(principal: Principal, id: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const invitation = await findPendingInvitation(trx, principal.accountId, id);
        if (!invitation) throw notFound(`Invitation ${id}`);
        const invitedAs = roleOf(invitation.role);
        assertMayAct(principal.role, areaOfInvitation(invitedAs), `Withdrawing an invitation to join as ${invitedAs}`);
        if (!(await deleteInvitation(trx, principal.accountId, id))) throw notFound(`Invitation ${id}`);
        await audit.record(
          principal,
          { action: 'invitation.withdrawn', target: { type: 'invitation', id }, details: { email: invitation.email, role: invitedAs } },
          trx,
        );
      });
    },

    /**
     * Withdraws, in the transaction of the change, the pending invitations a person made in the
     * account that `role` could not make (all of them when null: they leave it).
     */
    async withdrawBeyond(source: ChangeSource, inviterId: number, role: Role | null, executor: Executor): Promise<void> {
      for (const invitation of await listPendingInvitations(executor, source.accountId, clock(), inviterId)) {
        const invitedAs = roleOf(invitation.role);
        if (role !== null && mayAct(role, areaOfInvitation(invitedAs))) continue;
        await deleteInvitation(executor, source.accountId, invitation.id);
        await audit.record(
          source,
          {
            action: 'invitation.withdrawn',
            target: { type: 'invitation', id: invitation.id },
            details: { email: invitation.email, role: invitedAs, reason: role === null ? 'inviter_removed' : 'inviter_role_changed' },
          },
          executor,
        );
      }
    },

    /** The pending invitation of a token, for the page that accepts it; null when used, withdrawn or expired. */
    async peek(token: string): Promise<Invitation | null> {
      if (!INVITATION_TOKEN.test(token)) return null;
      const row = await findInvitationByTokenHash(db, sha256Hex(token));
      if (!row || row.accepted_at !== null || row.expires_at <= clock() || !(await inviterStillMay(row, db))) return null;
      return { accountId: row.account_id, email: row.email, role: roleOf(row.role) };
    },

    /** Uses the invitation of a token, once; 404 when it cannot be used. */
    async claim(token: string, executor: Executor): Promise<Invitation> {
      const invitation = INVITATION_TOKEN.test(token) ? await findInvitationByTokenHash(executor, sha256Hex(token)) : undefined;
      if (
        !invitation ||
        invitation.expires_at <= clock() ||
        !(await inviterStillMay(invitation, executor)) ||
        !(await markInvitationAccepted(executor, invitation.id, clock()))
      ) {
        throw new AppError(404, 'This invitation has been used, withdrawn or has expired');
      }
      await withdrawTo(null, invitation.account_id, invitation.email, 'joined', executor);
      return { accountId: invitation.account_id, email: invitation.email, role: roleOf(invitation.role) };
    },

    /** Withdraws the account's pending invitations to a member being removed, in that removal's transaction. */
    async withdrawToRemoved(source: ChangeSource, email: string, executor: Executor): Promise<void> {
      await withdrawTo(source, source.accountId, email, 'member_removed', executor);
    },

    /** The newest pending invitation for a verified e-mail (single sign-on), used at once. */
    async claimForEmail(email: string, executor: Executor): Promise<Invitation | null> {
      const invitation = await findPendingInvitationByEmail(executor, normalizeEmail(email), clock());
      if (!invitation || !(await inviterStillMay(invitation, executor)) || !(await markInvitationAccepted(executor, invitation.id, clock()))) {
        return null;
      }
      await withdrawTo(null, invitation.account_id, invitation.email, 'joined', executor);
      return { accountId: invitation.account_id, email: invitation.email, role: roleOf(invitation.role) };
    },
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
