/**
 * Where a sign-in goes on to: `next` when it is a path of this origin's dashboard, else the
 * dashboard itself. Sign-in, by password, by mailed link or by single sign-on, never sends anyone
 * to another site.
 */
export const dashboardPath = (next: string | undefined): string =>
  next !== undefined && /^\/app(?:[/?#]|$)/.test(next) && !/[\\\s]/.test(next) ? next : '/app';

/** `next` as the query of a link that carries it on (empty for the dashboard itself). */
export const nextQuery = (next: string, separator: '?' | '&' = '?'): string =>
  next === '/app' ? '' : `${separator}next=${encodeURIComponent(next)}`;
