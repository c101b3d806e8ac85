import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';

export type PortalDetail = paths['/api/client-portals/{id}']['get']['responses'][200]['content']['application/json']['portal'];

/** Cache keys: every portals query starts with `portals`. */
export const PORTALS_KEY = 'portals:list';
export const portalKey = (id: string) => `portals:one:${id}`;

export const fetchPortals = async () => (await ok(api.GET('/api/client-portals'))).portals;
export const fetchPortal = async (id: string) => (await ok(api.GET('/api/client-portals/{id}', { params: { path: { id } } }))).portal;

/** "Acme Corp." → "acme-corp": a first suggestion for the portal's address, which the owner may change. */
export const slugOf = (name: string) =>
  name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
