import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { FormError } from '../../ui/forms.js';
import { Chip, Section } from '../../ui/page.js';
import { Skeleton } from '../../ui/feedback.js';

const fetchStatus = () => ok(api.GET('/api/stripe/connect-status'));

/** Stripe Connect: whether the account can take payments, and the way to Stripe's onboarding. */
export function PaymentsSection() {
  const status = useQuery('stripe-status', fetchStatus);
  const connect = useMutation(async () => {
    const { url } = await ok(api.POST('/api/stripe/connect'));
    location.assign(url);
    return url;
  });
  const connected = status.data?.connected ?? false;
  const ready = status.data?.charges_enabled ?? false;
  return (
    <Section
      title={t('settings.payments.title')}
      description={t('settings.payments.description')}
      actions={
        status.data && (
          <Chip tone={ready ? 'success' : connected ? 'warning' : 'neutral'}>
            {t(ready ? 'settings.payments.ready' : connected ? 'settings.payments.incomplete' : 'settings.payments.notConnected')}
          </Chip>
        )
      }
    >
      {status.loading && <Skeleton rows={2} />}
      {status.error && (
        // Without Stripe configured the server answers an error: a fact about the server, not a failure to retry.
        <p class="settings-calm">{t('settings.payments.unavailable')}</p>
      )}
      {status.data && (
        <>
          <p>{t(ready ? 'settings.payments.readyText' : connected ? 'settings.payments.incompleteText' : 'settings.payments.notConnectedText')}</p>
          <FormError message={connect.error?.message} />
          {!ready && (
            <button type="button" class="button" disabled={connect.busy} onClick={() => void connect.run()}>
              {t(connected ? 'settings.payments.continue' : 'settings.payments.connect')}
            </button>
          )}
        </>
      )}
    </Section>
  );
}
