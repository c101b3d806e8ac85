import type { ComponentChildren } from 'preact';
import type { Query } from '../api/query.js';
import { t } from '../i18n/index.js';

/** An error as a sentence, announced to screen readers. */
export function ErrorMessage({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div class="alert alert-error" role="alert">
      <p>{message}</p>
      {onRetry && (
        <button type="button" class="button secondary small" onClick={onRetry}>
          {t('action.retry')}
        </button>
      )}
    </div>
  );
}

/** What an empty screen is for and the one thing to do about it. */
export function EmptyState({ title, text, action }: { title: string; text: string; action?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <h2>{title}</h2>
      <p>{text}</p>
      {action}
    </div>
  );
}

/** Grey bars in the shape of what is loading. */
export function Skeleton({ rows = 3, label = t('state.loading') }: { rows?: number; label?: string }) {
  return (
    <div class="skeleton" role="status" aria-label={label}>
      {Array.from({ length: rows }, (_, index) => (
        <span key={index} class="skeleton-bar" />
      ))}
    </div>
  );
}

/** Answers that may differ if asked again: unreachable (0), a time-out, too many requests, the server's own failure. */
const mayPassLater = (status: number) => status === 0 || status === 408 || status === 429 || status >= 500;

/** A query's three states: placeholder while loading, the error (with a retry where one can help), else the data. */
export function QueryState<T>({ query, children, rows }: { query: Query<T>; children: (data: T) => ComponentChildren; rows?: number }) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  if (query.error) {
    const { status, message } = query.error;
    // A screen's id comes from its address: one that cannot name anything is an address that leads nowhere.
    const shown = status === 400 && message.startsWith('path parameter') ? t('state.notFound') : message;
    return <ErrorMessage message={shown} onRetry={mayPassLater(status) ? () => void query.refetch() : undefined} />;
  }
  return <Skeleton rows={rows} />;
}
