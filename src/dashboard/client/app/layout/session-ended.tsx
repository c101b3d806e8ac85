import { useEffect, useState } from 'preact/hooks';
import { hasSessionEnded, onSessionEnded, signInAgainHref } from '../api/client.js';
import { t } from '../i18n/index.js';

/**
 * Said once an answer of the API tells that the session has ended: the screen stays as it is, with
 * what is being typed, until the person chooses to sign in again, which brings them back here.
 */
export function SessionEnded() {
  const [ended, setEnded] = useState(hasSessionEnded);
  useEffect(() => onSessionEnded(() => setEnded(true)), []);
  if (!ended) return null;
  return (
    <div class="session-ended" role="alert">
      <p>{t('session.ended')}</p>
      <a class="button" href={signInAgainHref()}>
        {t('session.signInAgain')}
      </a>
    </div>
  );
}
