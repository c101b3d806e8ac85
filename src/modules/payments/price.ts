// Stripe amounts are integers in the currency's smallest unit, and Stripe's idea of that
// unit is its own list, not ISO 4217's (https://docs.stripe.com/currencies#zero-decimal).
const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/** How many Stripe amount units make one unit of `currency` (1, 100 or 1000). */
export function unitsPerMajor(currency: string): number {
  const code = currency.toLowerCase();
  if (ZERO_DECIMAL.has(code)) return 1;
  return THREE_DECIMAL.has(code) ? 1000 : 100;
}

/** "€12.00" for (1200, "eur"), "¥1,200" for (1200, "jpy"). */
export function formatPrice(amount: number, currency: string, locale = 'en'): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() }).format(amount / unitsPerMajor(currency));
}
