import type { LinkRow } from '../../db/types.js';

const CHECKOUT_SESSION_ID = /^cs_[A-Za-z0-9_]{1,255}$/;

/** The shape of a Stripe checkout session id (a buyer's return URL carries one). */
export const isCheckoutSessionId = (value: string) => CHECKOUT_SESSION_ID.test(value);

/** What a link's original sells for, or null when it is not for sale. */
export function salePriceOf(
  link: Pick<LinkRow, 'kind' | 'require_payment' | 'download_price' | 'download_currency'>,
): { amount: number; currency: string } | null {
  if (link.kind !== 'file' || link.require_payment !== 1 || link.download_price === null || !link.download_currency) return null;
  return { amount: link.download_price, currency: link.download_currency };
}
