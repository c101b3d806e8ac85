import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { invalidate } from '../../api/query.js';
import { t, tn } from '../../i18n/index.js';
import { useConfirm } from '../../ui/dialog.js';
import { EmptyState, ErrorMessage, Skeleton } from '../../ui/feedback.js';
import { SelectField } from '../../ui/forms.js';
import { PageHeader, Pagination, Tabs } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { DownloadTokenDialog } from './download-token-dialog.js';
import {
  addressOf,
  ORDERS,
  PAGE_SIZE,
  useLinkList,
  viewAt,
  type LinkItem,
  type LinkList,
  type LinkTab,
  type ListView,
  type OrderName,
} from './link-list.js';
import type { LinkAction } from './link-menu.js';
import { LinkRows } from './link-rows.js';
import { ReplaceFileDialog } from './replace-file-dialog.js';
import { RoomDialog } from './room-dialog.js';

const UploadButton = () => (
  <a class="button" href="/app/documents/upload">
    {t('documents.upload')}
  </a>
);

/** The search box's text, passed on once typing pauses (a request per pause, not per key). */
function useSettledText(text: string, delayMs = 250): string {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(text), delayMs);
    return () => clearTimeout(timer);
  }, [text]);
  return settled;
}

function ListToolbar({
  view,
  list,
  search,
  onView,
  onSearch,
}: {
  view: ListView;
  list: LinkList | undefined;
  search: string;
  onView: (change: Partial<ListView>) => void;
  onSearch: (text: string) => void;
}) {
  return (
    <div class="documents-toolbar">
      <Tabs<LinkTab>
        label={t('documents.tabs')}
        value={view.tab}
        tabs={[
          { value: 'active', label: t('documents.tab.active'), count: list?.counts.active },
          { value: 'expired', label: t('documents.tab.expired'), count: list?.counts.expired },
        ]}
        onChange={(tab) => onView({ tab, page: 1 })}
      />
      <div class="documents-filters">
        <div class="field documents-search">
          <label for="documents-search">{t('documents.search')}</label>
          <input
            id="documents-search"
            class="input"
            type="search"
            placeholder={t('documents.searchPlaceholder')}
            value={search}
            onInput={(event) => onSearch(event.currentTarget.value)}
          />
        </div>
        <SelectField<OrderName>
          label={t('documents.sort')}
          value={view.order}
          options={(Object.keys(ORDERS) as OrderName[]).map((order) => ({ value: order, label: t(`documents.order.${order}`) }))}
          onValue={(order) => onView({ order, page: 1 })}
        />
      </div>
    </div>
  );
}

function NoLinks({ view }: { view: ListView }) {
  if (view.search.trim() !== '')
    return <EmptyState title={t('documents.empty.searchTitle', { search: view.search.trim() })} text={t('documents.empty.searchText')} />;
  if (view.tab === 'expired') return <EmptyState title={t('documents.empty.expiredTitle')} text={t('documents.empty.expiredText')} />;
  return <EmptyState title={t('documents.empty.title')} text={t('documents.empty.text')} action={<UploadButton />} />;
}

/** The home screen: the account's links by tab, searched, sorted and paged, with what can be done to each. */
export function DocumentsScreen() {
  const [view, setView] = useState<ListView>(() => viewAt(location.search));
  const [search, setSearch] = useState(view.search);
  const settledSearch = useSettledText(search);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [dialog, setDialog] = useState<{ action: 'replace' | 'downloadToken'; link: LinkItem } | { action: 'room' } | null>(null);
  const [confirm, confirmDialog] = useConfirm();
  const changeView = (change: Partial<ListView>) => setView((current) => ({ ...current, ...change }));
  useEffect(() => {
    if (settledSearch !== view.search) changeView({ search: settledSearch, page: 1 });
  }, [settledSearch]);
  // The view is kept in the address: Back from a link's screen, a reload or a shared address show it again.
  useEffect(() => history.replaceState(history.state, '', `${location.pathname}${addressOf(view)}`), [view]);
  const list = useLinkList(view);
  // A page left empty (its last link deleted, or moved to another tab): the last page that has links (a skeleton meanwhile).
  const pagination = list.data?.pagination;
  useEffect(() => {
    if (!pagination || list.data?.links.length !== 0 || pagination.page <= 1 || pagination.total === 0) return;
    changeView({ page: Math.ceil(pagination.total / PAGE_SIZE) });
  }, [pagination?.page, pagination?.total, list.data?.links.length]);

  const select = useCallback(
    (ids: string[], on: boolean) =>
      setSelected((current) => {
        const next = new Set(current);
        ids.forEach((id) => (on ? next.add(id) : next.delete(id)));
        return next;
      }),
    [],
  );

  const remove = useCallback(
    async (link: LinkItem) => {
      if (!(await confirm({ title: t('confirm.deleteTitle', { name: link.name }), text: t('documents.delete.text') }))) return;
      try {
        await ok(api.DELETE('/api/links/{id}', { params: { path: { id: link.id } } }));
        select([link.id], false);
        await invalidate('links');
        toast(t('documents.delete.done', { name: link.name }));
      } catch (caught) {
        toast((caught as Error).message, 'error');
      }
    },
    [confirm, select],
  );
  const act = useCallback((action: LinkAction, link: LinkItem) => (action === 'delete' ? void remove(link) : setDialog({ action, link })), [remove]);
  // The same element while another page loads: Preact skips the fifty rows, so the request leaves without waiting for them.
  const links = list.data?.links;
  const rows = useMemo(
    () => links && links.length > 0 && <LinkRows links={links} selected={selected} onSelect={select} onAction={act} />,
    [links, selected, select, act],
  );

  return (
    <>
      <PageHeader title={t('nav.documents')} lead={t('documents.lead')} actions={<UploadButton />} />
      <ListToolbar view={view} list={list.data} search={search} onView={changeView} onSearch={setSearch} />
      {selected.size > 0 && (
        <div class="documents-selection card" role="region" aria-label={t('documents.selection')}>
          <span>{tn('documents.selected', selected.size)}</span>
          <button type="button" class="button secondary small" onClick={() => setSelected(new Set())}>
            {t('documents.clearSelection')}
          </button>
          <button type="button" class="button small" onClick={() => setDialog({ action: 'room' })}>
            {t('documents.makeRoom')}
          </button>
        </div>
      )}
      {list.error && <ErrorMessage message={list.error.message} onRetry={() => void list.refetch()} />}
      {!list.data && !list.error && <Skeleton rows={6} />}
      {list.data && (
        <div aria-busy={list.stale}>
          {rows || (list.data.pagination.page > 1 && list.data.pagination.total > 0 ? <Skeleton rows={6} /> : <NoLinks view={view} />)}
          <Pagination page={list.data.pagination.page} limit={PAGE_SIZE} total={list.data.pagination.total} onPage={(page) => changeView({ page })} />
        </div>
      )}
      {dialog?.action === 'replace' && <ReplaceFileDialog link={dialog.link} onClose={() => setDialog(null)} />}
      {dialog?.action === 'downloadToken' && <DownloadTokenDialog link={dialog.link} onClose={() => setDialog(null)} />}
      {dialog?.action === 'room' && <RoomDialog linkIds={[...selected]} onClose={() => setDialog(null)} />}
      {confirmDialog}
    </>
  );
}
