import { createHmac } from 'node:crypto';
import type { Clock, Executor } from '../../db/executor.js';
import type { Db } from '../../db/kysely.js';
import { unprocessable } from '../../core/errors.js';
import { derivedKey, safeEqual, sha256Hex } from '../../infra/crypto/tokens.js';
import type { AccountRecords } from '../accounts/account-records.js';
import type { AuditLog, ChangeSource } from '../audit/audit.service.js';
import { findStripeAccount, findStripeAccountByStripeId, insertStripeAccount, updateChargesEnabled } from './payments.repo.js';
import { callStripe, requireStripe, retrieveOrNull, type Stripe } from './stripe-client.js';

/** How long a connected account's charges_enabled is trusted before asking Stripe again. */
export const STATUS_TTL_MS = 60_000;

export interface ConnectStatus {
  connected: boolean;
  charges_enabled: boolean | null;
  account_id: string | null;
}

/** Stripe Connect: each account's Express account, its onboarding, and whether it can charge. */
export function createStripeConnect(deps: {
  db: Db;
  clock: Clock;
  stripe: Stripe | null;
  publicUrl: string;
  masterKey: Buffer;
  accounts: Pick<AccountRecords, 'byId'>;
  audit: Pick<AuditLog, 'record'>;
}) {
  const { db, clock, stripe, publicUrl, accounts, audit } = deps;
  // The return page Stripe sends an owner to names their Stripe account; the check, ours alone,
  // keeps anyone else from learning whose an account is and from making us ask Stripe about it.
  const returnKey = derivedKey(deps.masterKey, 'linkvault stripe return pages');
  const returnCheckOf = (stripeAccountId: string) => createHmac('sha256', returnKey).update(stripeAccountId).digest('base64url');

  async function refresh(stripeAccountId: string): Promise<boolean> {
    const account = await retrieveOrNull(() => requireStripe(stripe).accounts.retrieve(stripeAccountId));
    // Deleted, or disconnected from the platform: it cannot charge.
    const chargesEnabled = account?.charges_enabled ?? false;
    await updateChargesEnabled(db, stripeAccountId, chargesEnabled, clock());
    return chargesEnabled;
  }

  /**
   * The connected account that receives this account's sales, or null if it cannot charge.
   * A cached "yes" is trusted for a minute; a "no" is re-checked, since onboarding may just have finished.
   */
  async function sellerAccountOf(accountId: number): Promise<string | null> {
    const row = await findStripeAccount(db, accountId);
    if (!row) return null;
    if (row.charges_enabled === 1 && clock() - row.checked_at < STATUS_TTL_MS) return row.stripe_account_id;
    return (await refresh(row.stripe_account_id)) ? row.stripe_account_id : null;
  }

  return {
    sellerAccountOf,

    async connect(source: ChangeSource): Promise<{ url: string }> {
      const { accountId } = source;
      const client = requireStripe(stripe);
      const connected = (await findStripeAccount(db, accountId)) !== undefined;
      if (!connected) {
        const owner = await accounts.byId(accountId);
        const account = await callStripe(() =>
          client.accounts.create(
            {
              type: 'express',
              email: owner?.email,
              capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
              metadata: { linkvault_account_id: String(accountId) },
            },
            // Two concurrent first connects get one Stripe account; the key is per deployment and account.
            { idempotencyKey: `linkvault-connect-${sha256Hex(`${publicUrl}|${accountId}`).slice(0, 40)}` },
          ),
        );
        await insertStripeAccount(db, { accountId, stripeAccountId: account.id, chargesEnabled: account.charges_enabled, now: clock() });
      }
      const row = (await findStripeAccount(db, accountId))!;
      const link = await callStripe(() =>
        client.accountLinks.create({
          account: row.stripe_account_id,
          type: 'account_onboarding',
          refresh_url: `${publicUrl}/stripe/refresh`,
          return_url: `${publicUrl}/stripe/return?account=${encodeURIComponent(row.stripe_account_id)}&check=${returnCheckOf(row.stripe_account_id)}`,
        }),
      );
      await audit.record(source, {
        action: 'payments.onboarding_started',
        target: { type: 'stripe_account', id: row.stripe_account_id },
        details: { newStripeAccount: !connected },
      });
      return { url: link.url };
    },

    async status(accountId: number): Promise<ConnectStatus> {
      requireStripe(stripe);
      const row = await findStripeAccount(db, accountId);
      if (!row) return { connected: false, charges_enabled: null, account_id: null };
      const chargesEnabled = clock() - row.checked_at < STATUS_TTL_MS ? row.charges_enabled === 1 : await refresh(row.stripe_account_id);
      return { connected: true, charges_enabled: chargesEnabled, account_id: row.stripe_account_id };
    },

    async assertCanSell(accountId: number): Promise<void> {
      if (!stripe) throw unprocessable('Paid downloads are not available: payments are not configured on this server');
      if (!(await sellerAccountOf(accountId))) {
        throw unprocessable(
          'Paid downloads need a Stripe account that accepts charges: connect one with POST /api/stripe/connect and finish its onboarding',
        );
      }
    },

    /** After Stripe's onboarding redirect: the account's fresh status, or null if the page's address is not one we made. */
    async refreshReturning(stripeAccountId: string, check: string): Promise<{ accountId: number; chargesEnabled: boolean } | null> {
      requireStripe(stripe);
      if (!safeEqual(check, returnCheckOf(stripeAccountId))) return null;
      const row = await findStripeAccountByStripeId(db, stripeAccountId);
      return row ? { accountId: row.account_id, chargesEnabled: await refresh(stripeAccountId) } : null;
    },

    /** An `account.updated` event: Stripe told us the status, no need to ask. */
    async applyAccountUpdate(executor: Executor, account: Pick<Stripe.Account, 'id' | 'charges_enabled'>): Promise<void> {
      await updateChargesEnabled(executor, account.id, account.charges_enabled, clock());
    },
  };
}

export type StripeConnect = ReturnType<typeof createStripeConnect>;
