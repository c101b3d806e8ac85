import { useState } from 'preact/hooks';
import { useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { CopyButton } from '../../ui/copy-button.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { PageHeader } from '../../ui/page.js';
import { NewPortalDialog } from './new-portal-dialog.js';
import { fetchPortals, PORTALS_KEY } from './portal-data.js';

/** The account's client portals: one address per client, where they find every link meant for them. */
export function PortalsScreen() {
  const [creating, setCreating] = useState(false);
  const portals = useQuery(PORTALS_KEY, fetchPortals);
  const newPortal = (
    <button type="button" class="button" onClick={() => setCreating(true)}>
      {t('portals.new.open')}
    </button>
  );
  return (
    <>
      <PageHeader title={t('nav.portals')} lead={t('portals.lead')} actions={newPortal} />
      <QueryState query={portals}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState title={t('portals.empty.title')} text={t('portals.empty.text')} action={newPortal} />
          ) : (
            <div class="card table-wrap">
              <table class="table table-cards">
                <caption class="visually-hidden">{t('portals.table')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('portals.column.name')}</th>
                    <th scope="col">{t('portals.column.address')}</th>
                    <th scope="col">
                      <span class="visually-hidden">{t('portals.column.actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((portal) => (
                    <tr key={portal.id}>
                      <td data-label={t('portals.column.name')}>
                        <a class="portals-name" href={`/app/portals/${encodeURIComponent(portal.id)}`}>
                          {portal.name}
                        </a>
                      </td>
                      <td data-label={t('portals.column.address')}>
                        <span class="mono portals-url">{portal.url}</span>
                      </td>
                      <td>
                        <div class="portals-actions">
                          <CopyButton text={portal.url} label={t('portals.copy')} />
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
      {creating && <NewPortalDialog onClose={() => setCreating(false)} />}
    </>
  );
}
