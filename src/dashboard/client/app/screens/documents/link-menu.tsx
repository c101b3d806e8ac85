import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../../i18n/index.js';
import type { LinkItem } from './link-list.js';

/** What the screen does for an action that needs more than a link: a dialog, or the confirmation before deleting. */
export type LinkAction = 'replace' | 'downloadToken' | 'delete';

/**
 * A link's actions behind one "Actions" button: a disclosure (native <details>) that the
 * keyboard opens with Enter or Space and that closes on Escape, a click elsewhere, or a choice.
 * It is open for the link it was opened for: when the next page of the list puts another link
 * in the same row, the menu closes instead of being built again.
 */
export function LinkMenu({ link, onAction }: { link: LinkItem; onAction: (action: LinkAction, link: LinkItem) => void }) {
  const menu = useRef<HTMLDetailsElement>(null);
  const [openFor, setOpenFor] = useState<string | null>(null);
  const open = openFor === link.id;
  const close = () => {
    if (menu.current) menu.current.open = false;
  };
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node)) close();
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      close();
      menu.current?.querySelector('summary')?.focus();
    };
    document.addEventListener('click', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('click', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  const choose = (action: LinkAction) => {
    // Focus on the menu's button before its items go: the dialog the action opens hands focus back to it.
    menu.current?.querySelector('summary')?.focus();
    close();
    onAction(action, link);
  };
  const base = `/app/documents/${encodeURIComponent(link.id)}`;
  return (
    <details ref={menu} class="documents-menu" open={open} onToggle={(event) => setOpenFor(event.currentTarget.open ? link.id : null)}>
      <summary class="button secondary small">
        {t('documents.actions')}
        <span class="visually-hidden"> {t('documents.actionsFor', { name: link.name })}</span>
      </summary>
      {/* The items exist only while the menu is open: fifty closed menus would otherwise be most of a page's nodes. */}
      {open && (
        <ul class="documents-menu-items" onClick={(event) => (event.target as HTMLElement).closest('a') && close()}>
          <li>
            <a href={link.viewer_url} target="_blank" rel="noopener noreferrer">
              {t('documents.action.open')}
            </a>
          </li>
          <li>
            <a href={`${base}/settings`}>{t('documents.action.settings')}</a>
          </li>
          <li>
            <a href={`${base}/analytics`}>{t('documents.action.analytics')}</a>
          </li>
          {link.kind === 'file' && (
            <>
              <li>
                <button type="button" onClick={() => choose('replace')}>
                  {t('documents.action.replace')}
                </button>
              </li>
              <li>
                <button type="button" onClick={() => choose('downloadToken')}>
                  {t('documents.action.downloadToken')}
                </button>
              </li>
            </>
          )}
          <li>
            <button type="button" class="documents-menu-danger" onClick={() => choose('delete')}>
              {t('action.delete')}
            </button>
          </li>
        </ul>
      )}
    </details>
  );
}
