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

/** A query's three states: placeholder while loading, the error with a retry, else the data. */
export function QueryState<T>({ query, children, rows }: { query: Query<T>; children: (data: T) => ComponentChildren; rows?: number }) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  // Trying again cannot bring back what is not there (404: deleted, or another account's).
  if (query.error)
    return <ErrorMessage message={query.error.message} onRetry={query.error.status === 404 ? undefined : () => void query.refetch()} />;
  return <Skeleton rows={rows} />;
}
