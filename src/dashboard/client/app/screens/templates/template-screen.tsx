import { useRoute } from 'preact-iso';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { changedFields, useDraft } from '../../ui/draft.js';
import { QueryState } from '../../ui/feedback.js';
import { FormError, ListField, SelectField, TextField, Toggle, listItems, listText } from '../../ui/forms.js';
import { PageHeader, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { AgreementField, agreementIdOf, agreementValueOf } from '../link/agreement-field.js';
import { fieldOfError } from '../link/link-data.js';
import { SaleFields, saleChange } from '../link/sale-fields.js';
import { fetchTemplate, templateKey, TEMPLATES, type Template, type TemplateChange } from './template-data.js';

type Expiration = NonNullable<Template['expiration']>;

const draftOf = (template: Template) => ({
  name: template.name,
  expiration: template.expiration ?? ('7d' as Expiration),
  hasWatermark: template.hasWatermark ?? false,
  requiresApproval: template.requiresApproval ?? false,
  requiresOtp: template.requiresOtp ?? false,
  allowedEmails: listText(template.allowedEmails ?? []),
  allowedDomains: listText(template.allowedDomains ?? []),
  requireEmail: template.requireEmail ?? false,
  agreementId: agreementValueOf(template.agreementId),
  allowDownload: template.allowDownload ?? false,
  notifyOnView: template.notifyOnView ?? true,
  previewPages: template.previewPages ? String(template.previewPages) : '',
  maxViews: String(template.maxViews ?? 0),
  sessionMinutes: String(Math.round((template.viewSessionTtlSeconds ?? 3600) / 60)),
  blockedEmails: listText(template.blockedEmails ?? []),
  blockedDomains: listText(template.blockedDomains ?? []),
  previewTitle: template.previewTitle ?? '',
  previewDescription: template.previewDescription ?? '',
  bookingUrl: template.bookingUrl ?? '',
  requirePaymentToDownload: template.requirePaymentToDownload ?? false,
  downloadPrice: template.downloadPrice == null ? '' : String(template.downloadPrice / 100),
  downloadCurrency: template.downloadCurrency ?? 'usd',
});
type Draft = ReturnType<typeof draftOf>;

/** The template as the form would state it; Save sends the fields changed (`changedFields`). */
const changeOf = (d: Draft): TemplateChange & { name: string } => ({
  name: d.name.trim(),
  expiration: d.expiration,
  hasWatermark: d.hasWatermark,
  requiresApproval: d.requiresApproval,
  requiresOtp: d.requiresOtp,
  allowedEmails: listItems(d.allowedEmails),
  allowedDomains: listItems(d.allowedDomains),
  requireEmail: d.requireEmail,
  agreementId: agreementIdOf(d.agreementId),
  allowDownload: d.allowDownload,
  notifyOnView: d.notifyOnView,
  previewPages: d.previewPages === '' ? null : Number(d.previewPages),
  maxViews: Number(d.maxViews || 0),
  viewSessionTtlSeconds: Math.round(Number(d.sessionMinutes) * 60),
  blockedEmails: listItems(d.blockedEmails),
  blockedDomains: listItems(d.blockedDomains),
  previewTitle: d.previewTitle.trim() || null,
  previewDescription: d.previewDescription.trim() || null,
  bookingUrl: d.bookingUrl.trim() || null,
  ...saleChange(d),
});

const FIELDS = Object.keys(changeOf(draftOf({ id: 0, name: '' }))).concat('viewSessionTtlSeconds');

function TemplateForm({ template }: { template: Template }) {
  const { draft, set, saved } = useDraft(draftOf(template));
  // Only what the person changed: another person's change to another field stays, and a session
  // set in seconds is not rounded to the minutes the form shows unless its minutes were changed.
  const change = () => changedFields(changeOf(draft), changeOf(draftOf(template)));
  const save = useMutation(
    async (edited: Partial<ReturnType<typeof changeOf>>) => {
      const answer = await ok(api.PATCH('/api/templates/{id}', { params: { path: { id: template.id } }, body: edited }));
      saved(draftOf({ ...template, ...edited }));
      return answer;
    },
    [TEMPLATES],
  );
  const message = save.error?.message;
  const errorField = message ? fieldOfError(message, FIELDS) : undefined;
  const errorFor = (field: string) => (field === errorField ? message : undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    const edited = change();
    if (Object.keys(edited).length === 0) return toast(t('state.unchanged'));
    if (await save.run(edited)) toast(t('templates.saved'));
  };
  const expirations: Array<{ value: Expiration; label: string }> = [
    { value: '1h', label: t('templates.expiration.1h') },
    { value: '24h', label: t('templates.expiration.24h') },
    { value: '7d', label: t('templates.expiration.7d') },
  ];
  return (
    <form class="templates-form" noValidate onSubmit={(event) => void submit(event)}>
      <FormError message={errorField ? undefined : message} />
      <Section title={t('templates.section.template')}>
        <div class="templates-fields">
          <TextField
            label={t('templates.field.name')}
            hint={t('templates.field.nameHint')}
            required
            maxLength={200}
            value={draft.name}
            onValue={(name) => set({ name })}
            error={errorFor('name')}
          />
          <SelectField
            label={t('templates.field.expiration')}
            hint={template.expiresAt !== undefined ? t('templates.field.expiresAtStated') : t('templates.field.expirationHint')}
            value={draft.expiration}
            options={expirations}
            onValue={(expiration) => set({ expiration })}
            error={errorFor('expiration')}
          />
        </div>
      </Section>
      <Section title={t('templates.section.visitors')} description={t('templates.section.visitorsHint')}>
        <div class="templates-fields">
          <Toggle
            label={t('templates.field.watermark')}
            hint={t('templates.field.watermarkHint')}
            checked={draft.hasWatermark}
            onChange={(hasWatermark) => set({ hasWatermark })}
          />
          <Toggle
            label={t('templates.field.otp')}
            hint={t('templates.field.otpHint')}
            checked={draft.requiresOtp}
            onChange={(requiresOtp) => set({ requiresOtp })}
          />
          {errorFor('requiresOtp') && <p class="field-error">{errorFor('requiresOtp')}</p>}
          {draft.requiresOtp && (
            <div class="templates-pair">
              <ListField
                label={t('templates.field.allowedEmails')}
                hint={t('templates.field.listHint')}
                value={draft.allowedEmails}
                onValue={(allowedEmails) => set({ allowedEmails })}
                error={errorFor('allowedEmails')}
              />
              <ListField
                label={t('templates.field.allowedDomains')}
                hint={t('templates.field.listHint')}
                value={draft.allowedDomains}
                onValue={(allowedDomains) => set({ allowedDomains })}
                error={errorFor('allowedDomains')}
              />
            </div>
          )}
          <Toggle label={t('templates.field.requireEmail')} checked={draft.requireEmail} onChange={(requireEmail) => set({ requireEmail })} />
          <Toggle
            label={t('templates.field.approval')}
            hint={t('templates.field.approvalHint')}
            checked={draft.requiresApproval}
            onChange={(requiresApproval) => set({ requiresApproval })}
          />
          <AgreementField value={draft.agreementId} onValue={(agreementId) => set({ agreementId })} error={errorFor('agreementId')} />
          <div class="templates-pair">
            <ListField
              label={t('link.visitors.blockedEmails')}
              hint={t('link.list.hint')}
              value={draft.blockedEmails}
              onValue={(blockedEmails) => set({ blockedEmails })}
              error={errorFor('blockedEmails')}
            />
            <ListField
              label={t('link.visitors.blockedDomains')}
              hint={t('link.list.domainHint')}
              value={draft.blockedDomains}
              onValue={(blockedDomains) => set({ blockedDomains })}
              error={errorFor('blockedDomains')}
            />
          </div>
        </div>
      </Section>
      <Section title={t('templates.section.document')}>
        <div class="templates-fields">
          <Toggle label={t('templates.field.download')} checked={draft.allowDownload} onChange={(allowDownload) => set({ allowDownload })} />
          <div class="templates-pair">
            <TextField
              type="number"
              inputMode="numeric"
              min={1}
              label={t('templates.field.previewPages')}
              hint={t('templates.field.previewPagesHint')}
              value={draft.previewPages}
              onValue={(previewPages) => set({ previewPages })}
              error={errorFor('previewPages')}
            />
            <TextField
              type="number"
              inputMode="numeric"
              min={0}
              label={t('templates.field.maxViews')}
              hint={t('templates.field.maxViewsHint')}
              value={draft.maxViews}
              onValue={(maxViews) => set({ maxViews })}
              error={errorFor('maxViews')}
            />
            <TextField
              type="number"
              inputMode="numeric"
              min={1}
              max={1440}
              label={t('templates.field.session')}
              hint={t('templates.field.sessionHint')}
              value={draft.sessionMinutes}
              onValue={(sessionMinutes) => set({ sessionMinutes })}
              error={errorFor('viewSessionTtlSeconds')}
            />
          </div>
          <SaleFields draft={draft} onChange={set} errorFor={errorFor} pairClass="templates-pair" />
        </div>
      </Section>
      <Section title={t('link.presentation.title')} description={t('templates.section.presentationHint')}>
        <div class="templates-fields">
          <TextField
            label={t('link.presentation.previewTitle')}
            hint={t('link.presentation.previewTitleHint')}
            maxLength={200}
            value={draft.previewTitle}
            onValue={(previewTitle) => set({ previewTitle })}
            error={errorFor('previewTitle')}
          />
          <TextField
            label={t('link.presentation.previewDescription')}
            maxLength={500}
            value={draft.previewDescription}
            onValue={(previewDescription) => set({ previewDescription })}
            error={errorFor('previewDescription')}
          />
          <TextField
            type="url"
            label={t('link.presentation.bookingUrl')}
            hint={t('link.presentation.bookingUrlHint')}
            value={draft.bookingUrl}
            onValue={(bookingUrl) => set({ bookingUrl })}
            error={errorFor('bookingUrl')}
          />
          <Toggle label={t('templates.field.notify')} checked={draft.notifyOnView} onChange={(notifyOnView) => set({ notifyOnView })} />
        </div>
      </Section>
      <div class="form-actions templates-save">
        <button type="submit" class="button" disabled={save.busy || draft.name.trim() === ''}>
          {save.busy ? t('state.saving') : t('templates.save')}
        </button>
      </div>
    </form>
  );
}

/** One template: every setting it gives a new upload, saved together. */
export function TemplateScreen() {
  const id = Number(useRoute().params.id);
  const template = useQuery(templateKey(id), () => fetchTemplate(id));
  return (
    <>
      <PageHeader
        title={template.data?.name ?? t('nav.templates')}
        lead={t('templates.template.lead')}
        actions={
          <a class="button secondary" href="/app/templates">
            {t('templates.back')}
          </a>
        }
      />
      <QueryState query={template} rows={8}>
        {(data) => <TemplateForm template={data} />}
      </QueryState>
    </>
  );
}
