import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { formatDate, t } from '../../i18n/index.js';
import { Dialog, useConfirm } from '../../ui/dialog.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { Field, FormError, SelectField, TextField } from '../../ui/forms.js';
import { Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { LinkPicker } from '../collections/link-picker.js';
import { useLink } from '../link/link-data.js';

const fetchAgreements = async () => (await ok(api.GET('/api/agreements'))).agreements;
type Agreement = Awaited<ReturnType<typeof fetchAgreements>>[number];
/** The link settings' agreement list is the same query: a change here shows there. */
const AGREEMENTS_KEY = 'agreements';

type Content = 'text' | 'pdf';

/** The PDF an agreement shows, by name once its link is read; another can be picked instead. */
function ChosenPdf({ linkId, name, onClear }: { linkId: string; name?: string; onClear: () => void }) {
  const link = useLink(linkId);
  return (
    <div class="settings-row">
      <div class="settings-row-main">
        <strong>{name ?? link.data?.name ?? linkId}</strong>
        <p class="muted">{t('settings.agreements.pdfChosen')}</p>
      </div>
      <button type="button" class="button secondary small" onClick={onClear}>
        {t('settings.agreements.pdfOther')}
      </button>
    </div>
  );
}

/** A name and either Markdown text or one of the account's PDFs: the same fields when written and when edited. */
function AgreementForm({ agreement, onDone }: { agreement?: Agreement; onDone: () => void }) {
  const [name, setName] = useState(agreement?.name ?? '');
  const [content, setContent] = useState<Content>(agreement?.pdfLinkId ? 'pdf' : 'text');
  const [text, setText] = useState(agreement?.text ?? '');
  const [pdf, setPdf] = useState<{ id: string; name?: string } | null>(agreement?.pdfLinkId ? { id: agreement.pdfLinkId } : null);
  const body = () => ({ name: name.trim(), ...(content === 'text' ? { text, pdfLinkId: null } : { text: null, pdfLinkId: pdf?.id ?? null }) });
  const save = useMutation(
    () =>
      agreement
        ? ok(api.PATCH('/api/agreements/{id}', { params: { path: { id: agreement.id } }, body: body() }))
        : ok(api.POST('/api/agreements', { body: body() })),
    [AGREEMENTS_KEY],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!(await save.run())) return;
    toast(t('settings.agreements.saved', { name: name.trim() }));
    onDone();
  };
  const complete = name.trim() !== '' && (content === 'text' ? text.trim() !== '' : pdf !== null);
  return (
    <form class="settings-form" onSubmit={(event) => void submit(event)}>
      <TextField
        label={t('settings.agreements.name')}
        hint={t('settings.agreements.nameHint')}
        required
        maxLength={200}
        value={name}
        onValue={setName}
      />
      <SelectField
        label={t('settings.agreements.content')}
        value={content}
        options={[
          { value: 'text', label: t('settings.agreements.contentText') },
          { value: 'pdf', label: t('settings.agreements.contentPdf') },
        ]}
        onValue={setContent}
      />
      {content === 'text' ? (
        <Field label={t('settings.agreements.text')} hint={t('settings.agreements.textHint')}>
          {(control) => (
            <textarea class="input list-input" rows={8} required {...control} value={text} onInput={(event) => setText(event.currentTarget.value)} />
          )}
        </Field>
      ) : pdf ? (
        <ChosenPdf linkId={pdf.id} name={pdf.name} onClear={() => setPdf(null)} />
      ) : (
        <LinkPicker chosen={new Set()} pdfsOnly onPick={(link) => setPdf(link)} />
      )}
      <FormError message={save.error?.message} />
      <div class="form-actions">
        {agreement && (
          <button type="button" class="button secondary" onClick={onDone}>
            {t('action.cancel')}
          </button>
        )}
        <button type="submit" class="button" disabled={save.busy || !complete}>
          {agreement ? t('settings.agreements.save') : t('settings.agreements.create')}
        </button>
      </div>
    </form>
  );
}

/** The agreements (NDAs) visitors accept before a document opens; a link or template picks one. */
export function AgreementsSection() {
  const agreements = useQuery(AGREEMENTS_KEY, fetchAgreements);
  const [editing, setEditing] = useState<Agreement | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [confirm, confirmDialog] = useConfirm();
  const remove = useMutation((id: number) => ok(api.DELETE('/api/agreements/{id}', { params: { path: { id } } })), [AGREEMENTS_KEY]);
  const removeAgreement = async (agreement: Agreement) => {
    const question = { title: t('confirm.deleteTitle', { name: agreement.name }), text: t('settings.agreements.deleteText') };
    if ((await confirm(question)) && (await remove.run(agreement.id))) toast(t('settings.agreements.deleted', { name: agreement.name }));
  };
  return (
    <Section title={t('settings.agreements.title')} description={t('settings.agreements.description')}>
      <AgreementForm key={formKey} onDone={() => setFormKey(formKey + 1)} />
      <FormError message={remove.error?.message} />
      <QueryState query={agreements}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState title={t('settings.agreements.emptyTitle')} text={t('settings.agreements.emptyText')} />
          ) : (
            <ul class="settings-list" aria-label={t('settings.agreements.list')}>
              {list.map((agreement) => (
                <li key={agreement.id} class="settings-row">
                  <div class="settings-row-main">
                    <strong>{agreement.name}</strong>
                    <p class="muted">
                      {agreement.pdfLinkId
                        ? t('settings.agreements.pdf')
                        : t('settings.agreements.updated', { date: formatDate(agreement.updatedAt) })}
                    </p>
                  </div>
                  <div class="settings-row-actions">
                    <button type="button" class="button secondary small" onClick={() => setEditing(agreement)}>
                      {t('action.edit')}
                      <span class="visually-hidden"> {agreement.name}</span>
                    </button>
                    <button type="button" class="button secondary small" disabled={remove.busy} onClick={() => void removeAgreement(agreement)}>
                      {t('action.delete')}
                      <span class="visually-hidden"> {agreement.name}</span>
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </QueryState>
      {editing && (
        <Dialog title={t('settings.agreements.editTitle', { name: editing.name })} open wide onClose={() => setEditing(null)}>
          <AgreementForm agreement={editing} onDone={() => setEditing(null)} />
        </Dialog>
      )}
      {confirmDialog}
    </Section>
  );
}
