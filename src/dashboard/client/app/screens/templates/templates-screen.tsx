import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { CardTable } from '../../ui/card-table.js';
import { useConfirmedDelete } from '../../ui/confirmed-delete.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { PageHeader } from '../../ui/page.js';
import { NewTemplateDialog } from './new-template-dialog.js';
import { TemplateChips } from './template-chips.js';
import { fetchTemplates, TEMPLATES, TEMPLATES_KEY, type Template } from './template-data.js';

/** The account's link templates: settings an upload takes in one choice. */
export function TemplatesScreen() {
  const [creating, setCreating] = useState(false);
  const templates = useQuery(TEMPLATES_KEY, fetchTemplates);
  const [confirmDelete, confirmDialog] = useConfirmedDelete();
  const remove = (template: Template) =>
    confirmDelete({
      name: template.name,
      text: t('templates.delete.text'),
      done: t('templates.delete.done', { name: template.name }),
      remove: () => ok(api.DELETE('/api/templates/{id}', { params: { path: { id: template.id } } })),
      affects: [TEMPLATES],
    });
  const newTemplate = (
    <button type="button" class="button" onClick={() => setCreating(true)}>
      {t('templates.new.open')}
    </button>
  );
  return (
    <>
      <PageHeader title={t('nav.templates')} lead={t('templates.lead')} actions={newTemplate} />
      <QueryState query={templates}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState title={t('templates.empty.title')} text={t('templates.empty.text')} action={newTemplate} />
          ) : (
            <CardTable
              caption={t('templates.table')}
              columns={[t('templates.column.name'), t('templates.column.sets')]}
              actions={t('templates.column.actions')}
            >
              {list.map((template) => (
                <tr key={template.id}>
                  <td data-label={t('templates.column.name')}>
                    <a class="templates-name" href={`/app/templates/${template.id}`}>
                      {template.name}
                    </a>
                  </td>
                  <td data-label={t('templates.column.sets')}>
                    <TemplateChips template={template} />
                  </td>
                  <td>
                    <div class="templates-actions">
                      <a class="button secondary small" href={`/app/templates/${template.id}`}>
                        {t('action.edit')}
                        <span class="visually-hidden"> {template.name}</span>
                      </a>
                      <button type="button" class="button secondary small" onClick={() => void remove(template)}>
                        {t('action.delete')}
                        <span class="visually-hidden"> {template.name}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </CardTable>
          )
        }
      </QueryState>
      {creating && <NewTemplateDialog onClose={() => setCreating(false)} />}
      {confirmDialog}
    </>
  );
}
