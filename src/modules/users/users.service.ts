import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import type { UserRow } from '../../db/types.js';
import { isEmail } from '../../core/email-address.js';
import { badRequest, unprocessable } from '../../core/errors.js';
import { hashPassword, verifyPassword } from '../../infra/crypto/passwords.js';
import { anyUserExists, claimTotpStep, deleteUsers, findUserByEmail, findUserById, insertUser, lockUser, updateUser } from './users.repo.js';

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

/** E-mail addresses are compared lower-cased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The address of a new person (invited, signing up, added): normalised, and one a visitor could
 * use too, so that every mail to it can be sent and no variant (`ann@corp.example.`) makes a second person.
 * Signing in takes any address, so that nobody added before this rule is locked out.
 */
export function newPersonEmail(typed: string): string {
  const email = normalizeEmail(typed);
  if (!isEmail(email)) throw badRequest(`"${email}" is not an e-mail address that can be used here, such as name@example.com`);
  return email;
}

export function assertPasswordAcceptable(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw badRequest(`A password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`);
  }
}

// Checked when no such person exists, so an unknown e-mail costs the same time as a wrong password.
// Made on the first sign-in, not at start.
let decoyHash: Promise<string> | undefined;

/** The people who sign in (the `users` table). Who belongs to which account is `modules/members`. */
export function createUsersService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    byEmail: (email: string, executor: Executor = db) => findUserByEmail(executor, normalizeEmail(email)),
    byId: (id: number, executor: Executor = db) => findUserById(executor, id),
    /** The person, held until `trx` ends: a password or two-factor change waits, or is seen. */
    held: (id: number, trx: Executor) => lockUser(trx, id),
    anyExists: (executor: Executor = db) => anyUserExists(executor),

    async create(input: { email: string; name: string; password: string | null }, executor: Executor = db): Promise<number> {
      const email = newPersonEmail(input.email);
      const name = input.name.trim();
      if (name === '') throw badRequest('A name is required');
      if (input.password !== null) assertPasswordAcceptable(input.password);
      if (await findUserByEmail(executor, email))
        throw unprocessable(`A person with e-mail ${email} already has a linkvault sign-in; sign in instead`);
      const passwordHash = input.password === null ? null : await hashPassword(input.password);
      return insertUser(executor, { email, name, passwordHash, createdAt: clock() });
    },

    /**
     * The person with this e-mail and password, or null: unknown, disabled, without a password
     * or a wrong one all take one scrypt and answer the same.
     */
    async withPassword(email: string, password: string, executor: Executor = db): Promise<UserRow | null> {
      const user = await findUserByEmail(executor, normalizeEmail(email));
      const usable = user && user.disabled_at === null && user.password_hash !== null ? user : null;
      const matches = await verifyPassword(
        password.slice(0, PASSWORD_MAX),
        usable?.password_hash ?? (await (decoyHash ??= hashPassword('linkvault decoy password'))),
      );
      return usable && matches ? usable : null;
    },

    async setPassword(userId: number, password: string, executor: Executor = db): Promise<void> {
      assertPasswordAcceptable(password);
      await updateUser(executor, userId, { password_hash: await hashPassword(password) });
    },

    rename: (userId: number, name: string, executor: Executor = db) => updateUser(executor, userId, { name }),
    /** A new sign-in address, already normalised and proved by its owner (`auth.confirmEmailChange`). */
    changeEmail: (userId: number, email: string, executor: Executor = db) => updateUser(executor, userId, { email }),
    /** Whether the person is e-mailed about the views of the links they made. */
    /** Deletes the sign-ins of people who belong to no account any more. */
    remove: (ids: readonly number[], executor: Executor = db) => deleteUsers(executor, ids),

    setViewAlerts: (userId: number, on: boolean, executor: Executor = db) => updateUser(executor, userId, { view_alerts_muted: on ? 0 : 1 }),

    recordSignIn: (userId: number, executor: Executor = db) => updateUser(executor, userId, { last_sign_in_at: clock() }),

    /** The sealed TOTP secret: pending until confirmed, null to turn two-factor off. */
    setTwoFactor: (userId: number, sealedSecret: string | null, confirmedAt: number | null, executor: Executor = db) =>
      updateUser(executor, userId, { totp_secret: sealedSecret, totp_confirmed_at: confirmedAt }),
    /** Spends the time step of an authenticator code, once across every replica; false if it or a later one was spent. */
    claimTotpStep: (userId: number, step: number, executor: Executor = db) => claimTotpStep(executor, userId, step),
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
