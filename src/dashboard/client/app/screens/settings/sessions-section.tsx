import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { formatDateTime, t } from '../../i18n/index.js';
import { useConfirm } from '../../ui/dialog.js';
import { FormError } from '../../ui/forms.js';
import { QueryState } from '../../ui/feedback.js';
import { Chip, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { deviceOf } from '../../ui/device.js';
import { succeeded } from './succeeded.js';

type Session = Awaited<ReturnType<typeof fetchSessions>>[number];
const fetchSessions = async () => (await ok(api.GET('/api/sessions'))).sessions;

/** The person's live sessions (this one marked), each of the others can be signed out. */
export function SessionsSection() {
  const sessions = useQuery('sessions', fetchSessions);
  const [confirm, confirmDialog] = useConfirm();
  const revoke = useMutation(
    (ids: string[]) => Promise.all(ids.map((id) => succeeded(api.DELETE('/api/sessions/{id}', { params: { path: { id } } })))),
    ['sessions'],
  );

  const signOut = async (others: Session[], title: string) => {
    if (!(await confirm({ title, text: t('settings.sessions.confirmText'), action: t('settings.sessions.signOut') }))) return;
    if (await revoke.run(others.map((session) => session.id))) toast(t('settings.sessions.signedOut'));
  };

  return (
    <Section title={t('settings.sessions.title')} description={t('settings.sessions.description')}>
      <QueryState query={sessions}>
        {(list) => {
          const others = list.filter((session) => !session.current);
          return (
            <>
              <FormError message={revoke.error?.message} />
              <ul class="settings-list">
                {list.map((session) => (
                  <li key={session.id} class="settings-row">
                    <div class="settings-row-main">
                      <strong>{deviceOf(session.userAgent)}</strong>
                      {session.current && <Chip tone="success">{t('settings.sessions.current')}</Chip>}
                      <p class="muted">{t('settings.sessions.details', { ip: session.ip, lastSeen: formatDateTime(session.lastSeenAt) })}</p>
                    </div>
                    {!session.current && (
                      <button
                        type="button"
                        class="button secondary small"
                        disabled={revoke.busy}
                        onClick={() => void signOut([session], t('settings.sessions.confirmOne', { device: deviceOf(session.userAgent) }))}
                      >
                        {t('settings.sessions.signOut')}
                      </button>
                    )}
                  </li>
                ))}
              </ul>
              {others.length > 0 && (
                <div class="form-actions">
                  <button
                    type="button"
                    class="button secondary"
                    disabled={revoke.busy}
                    onClick={() => void signOut(others, t('settings.sessions.confirmOthers'))}
                  >
                    {t('settings.sessions.signOutOthers')}
                  </button>
                </div>
              )}
            </>
          );
        }}
      </QueryState>
      {confirmDialog}
    </Section>
  );
}
