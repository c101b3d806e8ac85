import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useQuery } from '../../api/query.js';
import { formatDateTime, t } from '../../i18n/index.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { Pagination, Section } from '../../ui/page.js';

const LIMIT = 25;
const fetchPage = (page: number) => ok(api.GET('/api/audit-log', { params: { query: { page, limit: LIMIT } } }));

/** Who changed what in the account, newest first, a page at a time. */
export function AuditLogSection() {
  const [page, setPage] = useState(1);
  const log = useQuery(`audit-log:${page}`, () => fetchPage(page));
  return (
    <Section title={t('settings.audit.title')} description={t('settings.audit.description')}>
      <QueryState query={log} rows={8}>
        {({ entries, pagination }) =>
          entries.length === 0 ? (
            <EmptyState title={t('settings.audit.emptyTitle')} text={t('settings.audit.emptyText')} />
          ) : (
            <>
              <div class="table-wrap" tabIndex={0} role="region" aria-label={t('settings.audit.title')}>
                <table class="table">
                  <caption class="visually-hidden">{t('settings.audit.title')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('settings.audit.when')}</th>
                      <th scope="col">{t('settings.audit.who')}</th>
                      <th scope="col">{t('settings.audit.what')}</th>
                      <th scope="col">{t('settings.audit.where')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {entries.map((entry) => (
                      <tr key={entry.id}>
                        <td class="settings-nowrap">{formatDateTime(entry.at)}</td>
                        <td>{entry.actor.label}</td>
                        <td>
                          <code>{entry.action}</code>
                          {entry.target && (
                            <span class="muted">
                              {' '}
                              {entry.target.type} {entry.target.id}
                            </span>
                          )}
                        </td>
                        <td>{entry.ip ?? '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pagination page={page} limit={LIMIT} total={pagination.total} onPage={setPage} />
            </>
          )
        }
      </QueryState>
    </Section>
  );
}
