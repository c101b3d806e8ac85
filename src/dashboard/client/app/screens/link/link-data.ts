import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { useQuery } from '../../api/query.js';

export type LinkDetail = paths['/api/links/{id}']['get']['responses'][200]['content']['application/json'];
export type LinkSettings = LinkDetail['settings'];
export type SettingsChange = NonNullable<paths['/api/links/{id}']['patch']['requestBody']>['content']['application/json'];
export type LinkAnalytics = paths['/api/links/{id}/analytics']['get']['responses'][200]['content']['application/json'];

/** Cache keys: everything about one link starts with `link:<id>`, so a change refreshes all of it. */
export const linkKey = (id: string) => `link:${id}`;

export function useLink(id: string) {
  return useQuery(linkKey(id), () => ok(api.GET('/api/links/{id}', { params: { path: { id } } })));
}

/**
 * The link's visitor address. GET /api/links/{id} does not carry it, so it is read from the list
 * (which knows the account's own viewer domain), found by name; the app's own address otherwise.
 */
export function useViewerUrl(link: LinkDetail | undefined): string | undefined {
  const expiresAt = link?.settings.expiresAt;
  const tab = expiresAt && new Date(expiresAt).getTime() <= Date.now() ? 'expired' : 'active';
  const list = useQuery(link ? `links:viewer:${link.id}:${tab}` : null, () =>
    ok(api.GET('/api/links', { params: { query: { q: link!.name, limit: 50, page: 1, tab, sort: 'created' } } })),
  );
  if (!link) return undefined;
  return list.data?.links.find((item) => item.id === link.id)?.viewer_url ?? `${location.origin}/v/${encodeURIComponent(link.id)}`;
}

export const thumbnailUrl = (id: string, page: number) => `/api/links/${encodeURIComponent(id)}/pages/${page}/thumbnail`;

/** The settings field an API sentence is about (`field "blockedEmails" …`, `requiresOtp needs …`), if it names one of `fields`. */
export function fieldOfError(message: string, fields: readonly string[]): string | undefined {
  const quoted = /field "(\w+)"/.exec(message)?.[1];
  if (quoted && fields.includes(quoted)) return quoted;
  return fields.find((field) => new RegExp(`\\b${field}\\b`).test(message));
}
