import { useRef } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useQuery } from '../../api/query.js';

export const PAGE_SIZE = 50;

export type LinkTab = 'active' | 'expired';
/** The list's orders as the screen offers them: a column and its direction. */
export const ORDERS = {
  newest: { sort: 'created', order: 'desc' },
  oldest: { sort: 'created', order: 'asc' },
  nameAsc: { sort: 'name', order: 'asc' },
  nameDesc: { sort: 'name', order: 'desc' },
  mostViewed: { sort: 'views', order: 'desc' },
  recentlyViewed: { sort: 'lastViewed', order: 'desc' },
} as const;
export type OrderName = keyof typeof ORDERS;

/** What the list shows: which tab, which page, in which order, narrowed by a search. */
export interface ListView {
  tab: LinkTab;
  page: number;
  order: OrderName;
  search: string;
}

const FIRST_VIEW: ListView = { tab: 'active', page: 1, order: 'newest', search: '' };

/** The view the address names (`?tab=expired&q=deck&order=nameAsc&page=3`), the first one for what it leaves out or names wrongly. */
export function viewAt(search: string): ListView {
  const params = new URLSearchParams(search);
  const order = params.get('order');
  return {
    tab: params.get('tab') === 'expired' ? 'expired' : 'active',
    page: Math.max(1, Math.floor(Number(params.get('page'))) || 1),
    order: order !== null && Object.hasOwn(ORDERS, order) ? (order as OrderName) : FIRST_VIEW.order,
    search: params.get('q') ?? '',
  };
}

/** The address's query for `view`: what differs from the first view, so a reload, Back or a shared address shows it again. */
export function addressOf(view: ListView): string {
  const params = new URLSearchParams();
  if (view.tab !== FIRST_VIEW.tab) params.set('tab', view.tab);
  if (view.search.trim() !== '') params.set('q', view.search.trim());
  if (view.order !== FIRST_VIEW.order) params.set('order', view.order);
  if (view.page !== FIRST_VIEW.page) params.set('page', String(view.page));
  const query = params.toString();
  return query ? `?${query}` : '';
}

function fetchLinks(view: ListView) {
  const { sort, order } = ORDERS[view.order];
  const q = view.search.trim() || undefined;
  return ok(api.GET('/api/links', { params: { query: { tab: view.tab, page: view.page, limit: PAGE_SIZE, sort, order, q } } }));
}

export type LinkList = Awaited<ReturnType<typeof fetchLinks>>;
export type LinkItem = LinkList['links'][number];

/**
 * A page of the account's links; its key starts with 'links', so any change to a link
 * refreshes it. While another page, order or search loads, the last page stays on screen
 * (`stale`) rather than a placeholder.
 */
export function useLinkList(view: ListView) {
  const key = `links:list:${view.tab}:${view.order}:${view.page}:${view.search.trim()}`;
  const query = useQuery(key, () => fetchLinks(view));
  const last = useRef<LinkList | undefined>(undefined);
  if (query.data) last.current = query.data;
  return { ...query, data: query.data ?? (query.error ? undefined : last.current), stale: query.data === undefined };
}
