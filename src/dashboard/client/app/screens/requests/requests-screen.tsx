import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { invalidate, useQuery } from '../../api/query.js';
import { formatDateTime, t } from '../../i18n/index.js';
import { CardTable } from '../../ui/card-table.js';
import { EmptyState, ErrorMessage, QueryState } from '../../ui/feedback.js';
import { Chip, PageHeader } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';

type PendingRequest = paths['/api/links/pending-requests']['get']['responses'][200]['content']['application/json']['requests'][number];
type Decision = 'approved' | 'denied';

const PENDING_KEY = 'requests:pending';

/** One waiting visitor with the two answers; the row leaves the list once answered. */
function RequestRow({ request }: { request: PendingRequest }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const answer = async (status: Decision) => {
    setBusy(true);
    setError(undefined);
    try {
      await ok(
        api.PATCH('/api/links/{id}/requests/{requestId}', { params: { path: { id: request.linkId, requestId: request.id } }, body: { status } }),
      );
      toast(t(status === 'approved' ? 'requests.approved' : 'requests.denied', { email: request.email, link: request.linkName }));
      // 'links' covers the navigation's pending count.
      await invalidate(PENDING_KEY, 'links');
    } catch (caught) {
      setError((caught as Error).message);
      setBusy(false);
    }
  };
  const names = { email: request.email, link: request.linkName };
  return (
    <tr>
      <td data-label={t('requests.visitor')}>
        <strong class="requests-email">{request.email}</strong>
        {request.emailVerified === false && (
          <Chip tone="warning" title={t('requests.unverifiedHint')}>
            {t('requests.unverified')}
          </Chip>
        )}
        <span class="muted requests-ip">{t('requests.from', { ip: request.visitorIp })}</span>
      </td>
      <td data-label={t('requests.link')}>
        <a href={`/app/documents/${encodeURIComponent(request.linkId)}/settings`}>{request.linkName}</a>
      </td>
      <td data-label={t('requests.when')}>{formatDateTime(request.created_at)}</td>
      <td>
        <div class="requests-answer">
          <button
            type="button"
            class="button small"
            disabled={busy}
            aria-label={t('requests.approveLabel', names)}
            onClick={() => void answer('approved')}
          >
            {t('requests.approve')}
          </button>
          <button
            type="button"
            class="button secondary small"
            disabled={busy}
            aria-label={t('requests.denyLabel', names)}
            onClick={() => void answer('denied')}
          >
            {t('requests.deny')}
          </button>
        </div>
        {error && <ErrorMessage message={error} />}
      </td>
    </tr>
  );
}

/** Every access request waiting over the account's links, answered in one click each; refreshed every 15 s. */
export function RequestsScreen() {
  const pending = useQuery(PENDING_KEY, () => ok(api.GET('/api/links/pending-requests', { params: { query: { limit: 100 } } })), {
    refreshMs: 15_000,
  });
  return (
    <>
      <PageHeader title={t('requests.title')} lead={t('requests.lead')} />
      <QueryState query={pending}>
        {({ requests }) =>
          requests.length === 0 ? (
            <EmptyState title={t('requests.emptyTitle')} text={t('requests.emptyText')} />
          ) : (
            <CardTable
              caption={t('requests.table')}
              columns={[t('requests.visitor'), t('requests.link'), t('requests.when')]}
              actions={t('requests.answer')}
              class="requests-table"
            >
              {requests.map((request) => (
                <RequestRow key={request.id} request={request} />
              ))}
            </CardTable>
          )
        }
      </QueryState>
    </>
  );
}
