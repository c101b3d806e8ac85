import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { useQuery } from '../../api/query.js';

export type LinkDetail = paths['/api/links/{id}']['get']['responses'][200]['content']['application/json'];
export type LinkSettings = LinkDetail['settings'];
export type SettingsChange = NonNullable<paths['/api/links/{id}']['patch']['requestBody']>['content']['application/json'];
export type LinkAnalytics = paths['/api/links/{id}/analytics']['get']['responses'][200]['content']['application/json'];

/** Cache keys: everything about one link starts with `link:<id>`, so a change refreshes all of it. */
export const linkKey = (id: string) => `link:${id}`;

/** How often a link is fetched again while its pages are being prepared: the progress moves on its own. */
const PREPARING_REFRESH_MS = 2_000;

/** The link, an expired one too: its screens are where a new expiry brings it back. */
export function useLink(id: string) {
  return useQuery(linkKey(id), () => ok(api.GET('/api/links/{id}', { params: { path: { id }, query: { includeExpired: true } } })), {
    refreshMs: (link) => (link?.document.status === 'processing' ? PREPARING_REFRESH_MS : undefined),
  });
}

/** Whether the link's expiry has passed (the API then answers 410 to any other change than a new expiry). */
export const hasExpired = (link: LinkDetail) => link.settings.expiresAt !== null && new Date(link.settings.expiresAt).getTime() <= Date.now();

export const thumbnailUrl = (id: string, page: number) => `/api/links/${encodeURIComponent(id)}/pages/${page}/thumbnail`;

/** The settings field an API sentence is about (`field "blockedEmails" …`, `requiresOtp needs …`), if it names one of `fields`. */
export function fieldOfError(message: string, fields: readonly string[]): string | undefined {
  const quoted = /field "(\w+)"/.exec(message)?.[1];
  if (quoted && fields.includes(quoted)) return quoted;
  return fields.find((field) => new RegExp(`\\b${field}\\b`).test(message));
}
