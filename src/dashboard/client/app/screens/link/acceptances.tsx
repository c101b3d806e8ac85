import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { useQuery } from '../../api/query.js';
import { formatDateTime, t } from '../../i18n/index.js';
import { CardTable } from '../../ui/card-table.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { Section } from '../../ui/page.js';
import { linkKey } from './link-data.js';

type Acceptances = paths['/api/links/{id}/agreements']['get']['responses'][200]['content']['application/json'];

/** Who accepted the link's agreement, by name and address, as evidence to export. */
export function AgreementAcceptances({ linkId }: { linkId: string }) {
  const acceptances = useQuery(
    `${linkKey(linkId)}:acceptances`,
    () => ok(api.GET('/api/links/{id}/agreements', { params: { path: { id: linkId }, query: { format: 'json' } } })) as Promise<Acceptances>,
    { refreshMs: 15_000 },
  );
  return (
    <Section
      title={t('link.acceptances.title')}
      description={t('link.acceptances.description')}
      actions={
        <a class="button secondary small" href={`/api/links/${encodeURIComponent(linkId)}/agreements?format=csv`} download>
          {t('link.analytics.exportCsv')}
        </a>
      }
    >
      <QueryState query={acceptances}>
        {({ acceptances: list }) =>
          list.length === 0 ? (
            <EmptyState title={t('link.acceptances.emptyTitle')} text={t('link.acceptances.emptyText')} />
          ) : (
            <CardTable
              caption={t('link.acceptances.title')}
              columns={[t('link.acceptances.who'), t('link.acceptances.agreement'), t('link.acceptances.when')]}
              inCard={false}
            >
              {list.map((acceptance) => (
                <tr key={acceptance.id}>
                  <td data-label={t('link.acceptances.who')}>
                    <strong>{acceptance.name}</strong> <span class="muted">{acceptance.email}</span>
                  </td>
                  <td data-label={t('link.acceptances.agreement')}>{acceptance.agreementName}</td>
                  <td data-label={t('link.acceptances.when')}>{formatDateTime(acceptance.acceptedAt)}</td>
                </tr>
              ))}
            </CardTable>
          )
        }
      </QueryState>
    </Section>
  );
}
