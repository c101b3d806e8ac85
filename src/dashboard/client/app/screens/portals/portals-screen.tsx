import { useState } from 'preact/hooks';
import { useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { CardTable } from '../../ui/card-table.js';
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
            <CardTable
              caption={t('portals.table')}
              columns={[t('portals.column.name'), t('portals.column.address')]}
              actions={t('portals.column.actions')}
            >
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
            </CardTable>
          )
        }
      </QueryState>
      {creating && <NewPortalDialog onClose={() => setCreating(false)} />}
    </>
  );
}
