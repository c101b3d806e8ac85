import { formatDateTime, formatNumber, t, tn } from '../../i18n/index.js';
import { CopyButton } from '../../ui/copy-button.js';
import { GateChips } from './gate-chips.js';
import type { LinkItem } from './link-list.js';
import { LinkMenu, type LinkAction } from './link-menu.js';
import { useNarrowScreen } from '../../ui/narrow-screen.js';

interface RowsProps {
  links: LinkItem[];
  selected: ReadonlySet<string>;
  onSelect: (ids: string[], selected: boolean) => void;
  onAction: (action: LinkAction, link: LinkItem) => void;
}

/** "PDF", "DOCX", "Data room": what kind of file, as people name it. */
function typeOf(link: LinkItem): string {
  if (link.kind === 'room') return t('documents.type.room');
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(link.name)?.[1];
  return extension ? extension.toUpperCase() : link.mime;
}

/** Where a row's name leads: a data room's own screen, a file's settings. */
const homeOf = (link: LinkItem) =>
  link.kind === 'room' ? `/app/rooms/${encodeURIComponent(link.id)}` : `/app/documents/${encodeURIComponent(link.id)}/settings`;

function SelectBox({ link, selected, onSelect }: { link: LinkItem } & Pick<RowsProps, 'selected' | 'onSelect'>) {
  return (
    <input
      type="checkbox"
      class="documents-select"
      aria-label={t('documents.select', { name: link.name })}
      checked={selected.has(link.id)}
      onChange={(event) => onSelect([link.id], event.currentTarget.checked)}
    />
  );
}

function RowActions({ link, onAction }: { link: LinkItem; onAction: RowsProps['onAction'] }) {
  return (
    <div class="documents-row-actions">
      <CopyButton text={link.viewer_url} />
      <LinkMenu link={link} onAction={onAction} />
    </div>
  );
}

function LinkTable({ links, selected, onSelect, onAction }: RowsProps) {
  const allSelected = links.every((link) => selected.has(link.id));
  return (
    <div class="table-wrap card">
      <table class="table documents-table">
        <thead>
          <tr>
            <th scope="col" class="documents-select-cell">
              <input
                type="checkbox"
                class="documents-select"
                aria-label={t('documents.selectPage')}
                checked={allSelected}
                onChange={(event) =>
                  onSelect(
                    links.map((link) => link.id),
                    event.currentTarget.checked,
                  )
                }
              />
            </th>
            <th scope="col">{t('documents.column.name')}</th>
            <th scope="col" class="documents-type-column">
              {t('documents.column.type')}
            </th>
            <th scope="col" class="numeric documents-views-column">
              {t('documents.column.views')}
            </th>
            <th scope="col" class="documents-viewed-column">
              {t('documents.column.lastViewed')}
            </th>
            <th scope="col" class="documents-actions-column">
              <span class="visually-hidden">{t('documents.column.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {/* Rows keyed by position: the next page patches the same rows' text instead of building fifty new ones. */}
          {links.map((link, index) => (
            <tr key={index} class={selected.has(link.id) ? 'documents-selected' : undefined}>
              <td class="documents-select-cell">
                <SelectBox link={link} selected={selected} onSelect={onSelect} />
              </td>
              <td class="documents-name-cell">
                <a class="documents-name" href={homeOf(link)}>
                  {link.name}
                </a>
                <GateChips link={link} />
              </td>
              <td class="muted">{typeOf(link)}</td>
              <td class="numeric">{formatNumber(link.views)}</td>
              <td class="muted documents-nowrap">{formatDateTime(link.last_viewed_at)}</td>
              <td>
                <RowActions link={link} onAction={onAction} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LinkCards({ links, selected, onSelect, onAction }: RowsProps) {
  return (
    <ul class="documents-cards">
      {links.map((link) => (
        <li key={link.id} class="card documents-card">
          <div class="documents-card-title">
            <SelectBox link={link} selected={selected} onSelect={onSelect} />
            <a class="documents-name" href={homeOf(link)}>
              {link.name}
            </a>
          </div>
          <p class="muted documents-card-meta">
            {typeOf(link)} · {tn('documents.views', link.views)} ·{' '}
            {link.last_viewed_at ? t('documents.lastViewed', { date: formatDateTime(link.last_viewed_at) }) : t('documents.neverViewed')}
          </p>
          <GateChips link={link} />
          <RowActions link={link} onAction={onAction} />
        </li>
      ))}
    </ul>
  );
}

/** The page of links: a table on a wide screen, cards on a phone. */
export function LinkRows(props: RowsProps) {
  return useNarrowScreen() ? <LinkCards {...props} /> : <LinkTable {...props} />;
}
