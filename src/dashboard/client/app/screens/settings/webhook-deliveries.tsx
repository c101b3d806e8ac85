import { api, ok } from '../../api/client.js';
import { useQuery } from '../../api/query.js';
import { formatDateTime, t } from '../../i18n/index.js';
import { QueryState } from '../../ui/feedback.js';
import { Chip } from '../../ui/page.js';

const TONE = { delivered: 'success', pending: 'neutral', failed: 'danger' } as const;

/** The webhook's latest 50 deliveries, refreshed while open: what was sent, and what the endpoint answered. */
export function WebhookDeliveries({ webhookId }: { webhookId: number }) {
  const deliveries = useQuery(
    `webhooks:deliveries:${webhookId}`,
    async () => (await ok(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id: webhookId } } }))).deliveries,
    { refreshMs: 3000 },
  );
  return (
    <QueryState query={deliveries} rows={2}>
      {(list) =>
        list.length === 0 ? (
          <p class="muted">{t('settings.webhooks.noDeliveries')}</p>
        ) : (
          <ul class="settings-deliveries" aria-label={t('settings.webhooks.deliveries')}>
            {list.map((delivery) => (
              <li key={delivery.id}>
                <Chip tone={TONE[delivery.status]}>{t(`settings.webhooks.status.${delivery.status}`)}</Chip>{' '}
                <span class="mono">{delivery.eventType}</span>{' '}
                <span class="muted">
                  {formatDateTime(delivery.createdAt)}
                  {delivery.responseStatus !== null && ` · HTTP ${delivery.responseStatus}`}
                  {delivery.attempts > 1 && ` · ${t('settings.webhooks.attempts', { count: delivery.attempts })}`}
                </span>
                {delivery.error && <span class="settings-delivery-error">{delivery.error}</span>}
              </li>
            ))}
          </ul>
        )
      }
    </QueryState>
  );
}
