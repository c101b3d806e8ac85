import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok } from '../api/client.js';
import { t, type MessageKey } from '../i18n/index.js';
import { useMe } from '../session.js';
import { toast } from '../ui/toast.js';

/** Who is signed in, the accounts they can switch to, and sign-out. */
export function AccountMenu() {
  const me = useMe();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    // Escape closes the panel and hands the focus back to its button, as the rows' menus do.
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      root.current?.querySelector<HTMLButtonElement>('.account-button')?.focus();
    };
    document.addEventListener('click', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('click', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const switchTo = async (accountId: number) => {
    try {
      await ok(api.POST('/api/auth/switch-account', { body: { accountId } }));
      location.assign('/app');
    } catch (error) {
      toast((error as Error).message, 'error');
    }
  };
  const signOut = async () => {
    await api.POST('/api/auth/sign-out').catch(() => undefined);
    location.assign('/sign-in');
  };

  return (
    <div class="account-menu" ref={root}>
      <button type="button" class="account-button" aria-expanded={open} aria-controls="account-panel" onClick={() => setOpen(!open)}>
        <span class="visually-hidden">{t('account.menu')}: </span>
        {me.user?.name || me.user?.email}
      </button>
      <div id="account-panel" class="account-panel card" hidden={!open}>
        <p class="account-who">
          <strong>{me.user?.email}</strong>
          <span class="muted">
            {me.account.name} · {t(`account.role.${me.role}` as MessageKey)}
          </span>
        </p>
        {me.accounts.length > 1 && (
          <ul class="account-list" aria-label={t('account.switch')}>
            {me.accounts
              .filter((account) => account.id !== me.account.id)
              .map((account) => (
                <li key={account.id}>
                  <button type="button" class="link-button" onClick={() => void switchTo(account.id)}>
                    {account.name} · {t(`account.role.${account.role}` as MessageKey)}
                  </button>
                </li>
              ))}
          </ul>
        )}
        <button type="button" class="button secondary small" onClick={() => void signOut()}>
          {t('account.signOut')}
        </button>
      </div>
    </div>
  );
}
