import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../api/client.js';
import { useQuery } from '../api/query.js';
import { t } from '../i18n/index.js';
import { useCan, useMe } from '../session.js';
import { Toasts } from '../ui/toast.js';
import { AccountMenu } from './account-menu.js';
import { SessionEnded } from './session-ended.js';

const NAVIGATION = [
  { href: '/app/documents', label: 'nav.documents' },
  { href: '/app/analytics', label: 'nav.analytics' },
  { href: '/app/requests', label: 'nav.requests' },
  { href: '/app/rooms', label: 'nav.rooms' },
  { href: '/app/portals', label: 'nav.portals' },
  { href: '/app/templates', label: 'nav.templates' },
  { href: '/app/settings', label: 'nav.settings' },
] as const;

/** Access requests waiting for an answer, shown as a badge on Requests and refreshed every half minute. */
function usePendingRequests(): number {
  const pending = useQuery('links:pending-count', () => ok(api.GET('/api/links/pending-count')), { refreshMs: 30_000 });
  return pending.data?.count ?? 0;
}

function isCurrent(path: string, href: string): boolean {
  return path === href || path.startsWith(`${href}/`) || (href === '/app/documents' && path === '/app');
}

/** The frame of every screen: a header in the account's colour, the navigation, and the screen. */
export function Shell({ children }: { children: ComponentChildren }) {
  const { path } = useLocation();
  const me = useMe();
  const can = useCan();
  const pending = usePendingRequests();
  const [menuOpen, setMenuOpen] = useState(false);
  return (
    <>
      <a class="skip-link" href="#main">
        {t('nav.skip')}
      </a>
      <header class="app-header">
        <a class="app-name" href="/app">
          {me.account.name || t('app.name')}
        </a>
        <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="app-nav" onClick={() => setMenuOpen(!menuOpen)}>
          {t('nav.menu')}
        </button>
        <nav id="app-nav" class={`app-nav${menuOpen ? ' open' : ''}`} aria-label={t('nav.label')} onClick={() => setMenuOpen(false)}>
          <ul>
            {NAVIGATION.filter((item) => item.href !== '/app/settings' || can('content')).map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={isCurrent(path, item.href) ? 'page' : undefined}>
                  {t(item.label)}
                  {item.href === '/app/requests' && pending > 0 && (
                    <>
                      {' '}
                      <span class="badge" aria-hidden="true">
                        {pending}
                      </span>
                      <span class="visually-hidden">{t('nav.requestsPending', { count: pending })}</span>
                    </>
                  )}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <AccountMenu />
      </header>
      <SessionEnded />
      <main id="main" class="app-main">
        {children}
      </main>
      <Toasts />
    </>
  );
}
