import type { Executor } from '../../db/executor.js';
import type { InvitationRow } from '../../db/types.js';

export function insertMembership(db: Executor, membership: { userId: number; accountId: number; role: string; createdAt: number }) {
  return db
    .insertInto('memberships')
    .values({ user_id: membership.userId, account_id: membership.accountId, role: membership.role, created_at: membership.createdAt })
    .execute();
}

export function findMembership(db: Executor, userId: number, accountId: number) {
  return db.selectFrom('memberships').select(['role']).where('user_id', '=', userId).where('account_id', '=', accountId).executeTakeFirst();
}

/** A person's accounts, oldest membership first. */
export function listAccountsOf(db: Executor, userId: number) {
  return db
    .selectFrom('memberships')
    .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select(['accounts.id', 'accounts.name', 'accounts.email', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('accounts.id')
    .execute();
}

export function listMembers(db: Executor, accountId: number) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'users.id',
      'users.email',
      'users.name',
      'users.totp_confirmed_at',
      'users.last_sign_in_at',
      'memberships.role',
      'memberships.created_at',
    ])
    .where('memberships.account_id', '=', accountId)
    .orderBy('memberships.created_at')
    .orderBy('users.id')
    .execute();
}

export async function countOwners(db: Executor, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateRole(db: Executor, userId: number, accountId: number, role: string): Promise<boolean> {
  const result = await db
    .updateTable('memberships')
    .set({ role })
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteMembership(db: Executor, userId: number, accountId: number): Promise<boolean> {
  const result = await db.deleteFrom('memberships').where('user_id', '=', userId).where('account_id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function insertInvitation(
  db: Executor,
  invitation: { accountId: number; email: string; role: string; tokenHash: string; invitedBy: number | null; createdAt: number; expiresAt: number },
) {
  const row = await db
    .insertInto('invitations')
    .values({
      account_id: invitation.accountId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by: invitation.invitedBy,
      created_at: invitation.createdAt,
      expires_at: invitation.expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Invitations not yet accepted and not expired; only those one person made, when `invitedBy` is given. */
export function listPendingInvitations(db: Executor, accountId: number, now: number, invitedBy?: number) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .$if(invitedBy !== undefined, (query) => query.where('invited_by', '=', invitedBy!))
    .orderBy('id')
    .execute();
}

export function findInvitationByTokenHash(db: Executor, tokenHash: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** A pending invitation for this e-mail, newest first (single sign-on lets it in). */
export function findPendingInvitationByEmail(db: Executor, email: string, now: number): Promise<InvitationRow | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Marks it used; false when it was used (or withdrawn) in the meantime. */
export async function markInvitationAccepted(db: Executor, id: number, at: number): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ accepted_at: at })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A pending (not yet accepted) invitation of the account. */
export function findPendingInvitation(db: Executor, accountId: number, id: number): Promise<InvitationRow | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
}

export async function deleteInvitation(db: Executor, accountId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('invitations')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export function findMembershipByEmail(db: Executor, accountId: number, email: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('memberships.role')
    .where('memberships.account_id', '=', accountId)
    .where('users.email', '=', email)
    .executeTakeFirst();
}

/** Deletes the account's pending invitations to this address (expired ones too); the ones it deleted. */
export function deletePendingInvitationsTo(db: Executor, accountId: number, email: string) {
  return db
    .deleteFrom('invitations')
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .returning(['id', 'role', 'expires_at'])
    .execute();
}

export async function findPersonEmail(db: Executor, userId: number): Promise<string | undefined> {
  const row = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  return row?.email;
}

/** The account's people and their addresses, each with how many accounts they belong to in all. */
export function listPeopleWithAccountCounts(db: Executor, accountId: number) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.user_id', 'users.email'])
    .select((eb) =>
      eb
        .selectFrom('memberships as each')
        .select((inner) => inner.fn.countAll<number>().as('count'))
        .whereRef('each.user_id', '=', 'memberships.user_id')
        .as('accounts'),
    )
    .where('memberships.account_id', '=', accountId)
    .execute();
}
