import { t } from '../../i18n/index.js';
import { ErrorMessage } from '../../ui/feedback.js';
import { Section } from '../../ui/page.js';
import { LinkPicker } from './link-picker.js';

export interface CollectedLink {
  id: string;
  name: string;
  views: number;
}

/**
 * The links a room or a portal holds, each removable (and, where the order shows, movable),
 * with the picker that adds more. The owner of the collection sends each change to the API.
 */
export function LinkCollection({
  title,
  description,
  links,
  busy,
  error,
  filesOnly,
  keepOne,
  onAdd,
  onRemove,
  onMove,
}: {
  title: string;
  description: string;
  links: CollectedLink[];
  busy: boolean;
  error?: string | undefined;
  filesOnly?: boolean;
  /** a room shows at least one link: its last one cannot be removed */
  keepOne?: boolean;
  onAdd: (link: { id: string; name: string }) => void;
  onRemove: (link: CollectedLink) => void;
  onMove?: (link: CollectedLink, by: -1 | 1) => void;
}) {
  const lastOne = keepOne && links.length === 1;
  return (
    <Section title={title} description={description}>
      {error && <ErrorMessage message={error} />}
      {links.length === 0 ? (
        <p class="muted">{t('collections.empty')}</p>
      ) : (
        <ol class="collection-list" aria-label={title}>
          {links.map((link, index) => (
            <li key={link.id} class="collection-item">
              <span class="collection-name">
                <a href={`/app/documents/${encodeURIComponent(link.id)}/settings`}>{link.name}</a>
                <span class="muted collection-views">{t('collections.views', { count: link.views })}</span>
              </span>
              <span class="collection-actions">
                {onMove && (
                  <>
                    <button
                      type="button"
                      class="button secondary small"
                      disabled={busy || index === 0}
                      aria-label={t('collections.upLabel', { name: link.name })}
                      onClick={() => onMove(link, -1)}
                    >
                      {t('collections.up')}
                    </button>
                    <button
                      type="button"
                      class="button secondary small"
                      disabled={busy || index === links.length - 1}
                      aria-label={t('collections.downLabel', { name: link.name })}
                      onClick={() => onMove(link, 1)}
                    >
                      {t('collections.down')}
                    </button>
                  </>
                )}
                <button
                  type="button"
                  class="button secondary small"
                  disabled={busy || lastOne}
                  title={lastOne ? t('collections.keepOne') : undefined}
                  aria-label={t('collections.removeLabel', { name: link.name })}
                  onClick={() => onRemove(link)}
                >
                  {t('collections.remove')}
                </button>
              </span>
            </li>
          ))}
        </ol>
      )}
      {lastOne && <p class="field-hint">{t('collections.keepOne')}</p>}
      <LinkPicker chosen={new Set(links.map((link) => link.id))} filesOnly={filesOnly} busy={busy} onPick={onAdd} />
    </Section>
  );
}
