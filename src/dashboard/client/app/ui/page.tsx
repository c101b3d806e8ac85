import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { formatNumber, t } from '../i18n/index.js';

/** A screen's title (focused when the screen opens, so screen readers hear where they are), its lead and its main actions. */
export function PageHeader({ title, lead, actions }: { title: string; lead?: string; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${t('app.name')}`;
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <header class="page-header">
      <div>
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {lead && <p class="lead">{lead}</p>}
      </div>
      {actions && <div class="page-actions">{actions}</div>}
    </header>
  );
}

/** A section of a screen, with its heading. */
export function Section({
  title,
  description,
  children,
  actions,
}: {
  title: string;
  description?: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="card section" aria-label={title}>
      <header class="section-header">
        <div>
          <h2>{title}</h2>
          {description && <p class="muted">{description}</p>}
        </div>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** Tabs that filter one list: buttons with aria-pressed, each with its count. */
export function Tabs<V extends string>({
  label,
  value,
  tabs,
  onChange,
}: {
  label: string;
  value: V;
  tabs: Array<{ value: V; label: string; count?: number }>;
  onChange: (value: V) => void;
}) {
  return (
    <div class="tabs" role="group" aria-label={label}>
      {tabs.map((tab) => (
        <button key={tab.value} type="button" class="tab" aria-pressed={tab.value === value} onClick={() => onChange(tab.value)}>
          {tab.label}
          {tab.count !== undefined && <span class="tab-count">{formatNumber(tab.count)}</span>}
        </button>
      ))}
    </div>
  );
}

/** Previous / next with "1–50 of 1,234". */
export function Pagination({ page, limit, total, onPage }: { page: number; limit: number; total: number; onPage: (page: number) => void }) {
  if (total === 0) return null;
  const from = (page - 1) * limit + 1;
  const to = Math.min(total, page * limit);
  return (
    <nav class="pagination" aria-label={t('pagination.label')}>
      <button type="button" class="button secondary small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('pagination.previous')}
      </button>
      <span>{t('pagination.range', { from: formatNumber(from), to: formatNumber(to), total: formatNumber(total) })}</span>
      <button type="button" class="button secondary small" disabled={to >= total} onClick={() => onPage(page + 1)}>
        {t('pagination.next')}
      </button>
    </nav>
  );
}

/** A small label: a gate on a link, a status. */
export function Chip({
  children,
  tone = 'neutral',
  title,
}: {
  children: ComponentChildren;
  tone?: 'neutral' | 'brand' | 'warning' | 'danger' | 'success';
  title?: string;
}) {
  return (
    <span class={`chip chip-${tone}`} title={title}>
      {children}
    </span>
  );
}
