import type { Principal } from '../../core/auth.js';
import { forbidden, notFound, unprocessable } from '../../core/errors.js';
import { assertMayAct, roleOf, type Role } from '../../core/permissions.js';
import { isoTime } from '../../core/timestamps.js';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { AuditLog } from '../audit/audit.service.js';
import type { AccountRecords } from '../accounts/account-records.js';
import type { ApiKeysService } from '../api-keys/api-keys.service.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { InvitationsService } from './invitations.service.js';
import {
  countOwners,
  deleteMembership,
  findMembership,
  findPersonEmail,
  insertMembership,
  listAccountsOf,
  listMembers,
  listPeopleWithAccountCounts,
  updateRole,
} from './members.repo.js';

/**
 * Who belongs to which account, with which role (the `memberships` table). At least one owner
 * always remains; only an owner makes, changes or removes an owner. A person's pending
 * invitations go with a change that leaves them unable to make them, and those to them with their removal.
 */
export function createMembersService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  accounts: Pick<AccountRecords, 'lock'>;
  sessions: Pick<SessionsService, 'endIn' | 'forgetUser'>;
  /** Keys act with their maker's role: what this process remembers of them goes with a change, and a removal revokes them. */
  apiKeys: Pick<ApiKeysService, 'forgetAccount' | 'revokeMadeBy' | 'personBehind'>;
  invitations: Pick<InvitationsService, 'withdrawBeyond' | 'withdrawToRemoved'>;
}) {
  const { db, clock, audit, accounts, sessions, apiKeys, invitations } = deps;

  /** Holds the account's lock, so two changes cannot both remove "the other" last owner. */
  async function assertOwnerRemains(trx: Executor, accountId: number, losing: Role): Promise<void> {
    if (losing !== 'owner') return;
    if ((await countOwners(trx, accountId)) <= 1) throw unprocessable('An account keeps at least one owner: make someone else owner first');
  }

  async function roleIn(userId: number, accountId: number, executor: Executor = db): Promise<Role | null> {
    const row = await findMembership(executor, userId, accountId);
    return row ? roleOf(row.role) : null;
  }

  /**
   * The role the principal acts with, read under the account's lock: a request authenticated before
   * its person (a key's maker) was demoted or removed acts with what they hold now, not what they held.
   * A key of the command line's is no one's and keeps its role.
   */
  async function actingRole(trx: Executor, principal: Principal): Promise<Role> {
    const person = await apiKeys.personBehind(principal, trx);
    if (person === null) return principal.role;
    const role = await roleIn(person, principal.accountId, trx);
    if (!role) throw forbidden('You are no longer a member of this account');
    assertMayAct(role, 'members');
    return role;
  }

  /**
   * Ends a person's membership of the principal's account, under the account's lock: what a
   * removal and a departure share. Their sessions in it end, invitations they made or that were
   * made to them are withdrawn, and keys they made there are revoked.
   */
  async function endMembership(trx: Executor, principal: Principal, userId: number, role: Role, action: 'member.removed' | 'member.left') {
    await assertOwnerRemains(trx, principal.accountId, role);
    await deleteMembership(trx, userId, principal.accountId);
    await sessions.endIn(userId, principal.accountId, trx);
    await audit.record(principal, { action, target: { type: 'user', id: userId }, details: { role } }, trx);
    await invitations.withdrawBeyond(principal, userId, null, trx);
    // An invitation to them still pending (sent twice, or before they joined otherwise) would let them back in.
    const email = await findPersonEmail(trx, userId);
    if (email !== undefined) await invitations.withdrawToRemoved(principal, email, trx);
    await apiKeys.revokeMadeBy(principal, userId, trx);
  }

  return {
    /**
     * The person leaves every account they belong to, as `leave` does in one (for the deletion of
     * their sign-in, in its transaction). 422 while they are the last owner of one, naming it.
     */
    async leaveAll(principal: Principal, userId: number, trx: Executor): Promise<number[]> {
      const memberships = await listAccountsOf(trx, userId);
      // In one order for everyone: two people leaving the same accounts at once must not each hold one the other waits for.
      for (const id of memberships.map((membership) => membership.id).sort((a, b) => a - b)) await accounts.lock(trx, id);
      const kept = [];
      for (const { id, name, email, role } of memberships) {
        if (role === 'owner' && (await countOwners(trx, id)) <= 1) kept.push(name ?? email);
      }
      if (kept.length > 0) {
        throw unprocessable(`You are the only owner of ${kept.join(', ')}: make someone else owner, or delete the account, first`);
      }
      for (const { id, role } of memberships) await endMembership(trx, { ...principal, accountId: id }, userId, roleOf(role), 'member.left');
      return memberships.map((membership) => membership.id);
    },

    /** After the commit of `leaveAll`: a lookup under way saw the person's sessions and keys still there. */
    forgetLeaving(userId: number, accountIds: readonly number[]): void {
      sessions.forgetUser(userId);
      for (const accountId of accountIds) apiKeys.forgetAccount(accountId);
    },

    /** Makes the person a member with this role, unless they are one already; answers the role they hold. */
    async join(userId: number, accountId: number, role: Role, executor: Executor = db): Promise<Role> {
      const existing = await findMembership(executor, userId, accountId);
      if (existing) return roleOf(existing.role);
      await insertMembership(executor, { userId, accountId, role, createdAt: clock() });
      return role;
    },

    roleIn,

    async accountsOf(userId: number, executor: Executor = db) {
      const rows = await listAccountsOf(executor, userId);
      return rows.map((row) => ({ id: row.id, name: row.name ?? row.email, role: roleOf(row.role) }));
    },

    /** The account's people, and whether it is the only account each belongs to. */
    async peopleOf(accountId: number, executor: Executor = db): Promise<{ userId: number; email: string; onlyHere: boolean }[]> {
      const rows = await listPeopleWithAccountCounts(executor, accountId);
      return rows.map((row) => ({ userId: row.user_id, email: row.email, onlyHere: Number(row.accounts) === 1 }));
    },

    async list(accountId: number) {
      const rows = await listMembers(db, accountId);
      return rows.map((row) => ({
        userId: row.id,
        email: row.email,
        name: row.name,
        role: roleOf(row.role),
        twoFactor: row.totp_confirmed_at !== null,
        joinedAt: isoTime(row.created_at),
        lastSignInAt: row.last_sign_in_at === null ? null : isoTime(row.last_sign_in_at),
      }));
    },

    async changeRole(principal: Principal, userId: number, role: Role) {
      const result = await db.transaction().execute(async (trx) => {
        await accounts.lock(trx, principal.accountId);
        const acting = await actingRole(trx, principal);
        const current = await roleIn(userId, principal.accountId, trx);
        if (!current) throw notFound(`Member ${userId}`);
        if (current === role) return current;
        if (current === 'owner' || role === 'owner') assertMayAct(acting, 'owners');
        await assertOwnerRemains(trx, principal.accountId, current);
        await updateRole(trx, userId, principal.accountId, role);
        await audit.record(
          principal,
          { action: 'member.role_changed', target: { type: 'user', id: userId }, details: { from: current, to: role } },
          trx,
        );
        await invitations.withdrawBeyond(principal, userId, role, trx);
        return current;
      });
      sessions.forgetUser(userId);
      apiKeys.forgetAccount(principal.accountId);
      return result;
    },

    async remove(principal: Principal, userId: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await accounts.lock(trx, principal.accountId);
        const acting = await actingRole(trx, principal);
        const current = await roleIn(userId, principal.accountId, trx);
        if (!current) throw notFound(`Member ${userId}`);
        if (current === 'owner') assertMayAct(acting, 'owners');
        await endMembership(trx, principal, userId, current, 'member.removed');
      });
      sessions.forgetUser(userId);
      apiKeys.forgetAccount(principal.accountId);
    },

    /**
     * The signed-in person leaves the principal's account by themselves: no role is asked, but an
     * account keeps its last owner. Every session of theirs in it ends, this one too.
     */
    async leave(principal: Principal): Promise<void> {
      if (principal.actor.type !== 'user') throw forbidden('This endpoint is for a signed-in person, not an API key');
      const userId = principal.actor.id;
      await db.transaction().execute(async (trx) => {
        await accounts.lock(trx, principal.accountId);
        const current = await roleIn(userId, principal.accountId, trx);
        if (!current) throw forbidden('You are no longer a member of this account');
        await endMembership(trx, principal, userId, current, 'member.left');
      });
      sessions.forgetUser(userId);
      apiKeys.forgetAccount(principal.accountId);
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
