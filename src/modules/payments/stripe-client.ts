import type Stripe from 'stripe';
import type { Config } from '../../config.js';
import { AppError, serviceUnavailable, unprocessable } from '../../core/errors.js';

export type { Stripe };

/** The SDK, loaded only when a key is configured: without one no Stripe error can arise either. */
let stripeSdk: typeof Stripe | undefined;

/** The official SDK over the configured key; null when payments are not configured. */
export async function createStripeClient(config: Pick<Config, 'stripeSecretKey' | 'stripeApiBase'>): Promise<Stripe | null> {
  if (!config.stripeSecretKey) return null;
  stripeSdk ??= (await import('stripe')).default;
  const base = config.stripeApiBase;
  return new stripeSdk(config.stripeSecretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    // STRIPE_API_BASE points the SDK at another host (the tests' stand-in).
    ...(base && {
      host: base.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: base.port || (base.protocol === 'https:' ? 443 : 80),
      protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
    }),
  });
}

/** The SDK client, or the 503 every payments endpoint answers without STRIPE_SECRET_KEY. */
export function requireStripe(stripe: Stripe | null): Stripe {
  if (!stripe) throw serviceUnavailable('payments are not configured');
  return stripe;
}

/**
 * A failed Stripe call as the error our client sees. Stripe's own wording (useful to an
 * owner setting up) is passed on only for requests it refused on their merits, and only
 * when the caller gives no `refusal` of its own (visitors get that instead); never
 * anything about our key.
 */
function stripeFailure(error: unknown, refusal?: string): Error {
  if (error instanceof AppError || !stripeSdk || !(error instanceof stripeSdk.errors.StripeError)) return error as Error;
  const { errors } = stripeSdk;
  if (error instanceof errors.StripeInvalidRequestError) return unprocessable(refusal ?? `Stripe refused the request: ${error.message}`);
  if (error instanceof errors.StripeAuthenticationError || error instanceof errors.StripePermissionError) {
    return new AppError(502, "Stripe refused this server's credentials; the operator must check STRIPE_SECRET_KEY");
  }
  return new AppError(502, 'Stripe could not be reached; try again in a moment');
}

/** A retrieval, or null when Stripe answers that the object does not exist or is not ours to see. */
export async function retrieveOrNull<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (error) {
    const errors = stripeSdk?.errors;
    if (errors && (error instanceof errors.StripeInvalidRequestError || error instanceof errors.StripePermissionError)) return null;
    throw stripeFailure(error);
  }
}

/** Runs one Stripe call, turning its failures into AppErrors (see stripeFailure). */
export async function callStripe<T>(call: () => Promise<T>, refusal?: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw stripeFailure(error, refusal);
  }
}
