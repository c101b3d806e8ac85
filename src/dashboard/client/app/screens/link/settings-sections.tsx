import { t } from '../../i18n/index.js';
import { ListField, TextField, Toggle, listItems, listText } from '../../ui/forms.js';
import { AgreementField, agreementIdOf, agreementValueOf } from './agreement-field.js';
import type { LinkDetail } from './link-data.js';
import { SaleFields, saleChange } from './sale-fields.js';
import { SettingsSection, localDateTime, numberOrNull, useSettingsForm } from './settings-form.js';

type Props = { link: LinkDetail };

export function NameSection({ link }: Props) {
  const form = useSettingsForm(
    link,
    ['name'],
    (l) => ({ name: l.name }),
    (d) => ({ name: d.name }),
  );
  return (
    <SettingsSection title={t('link.name.title')} form={form}>
      <TextField
        label={t('link.name.label')}
        hint={t('link.name.hint')}
        error={form.errorFor('name')}
        value={form.draft.name}
        onValue={(name) => form.set({ name })}
      />
    </SettingsSection>
  );
}

export function AccessSection({ link }: Props) {
  const form = useSettingsForm(
    link,
    ['isActive', 'expiresAt', 'maxViews', 'viewSessionTtlSeconds'],
    ({ settings: s }) => ({
      isActive: s.isActive,
      expires: s.expiresAt !== null,
      expiresAt: s.expiresAt ? localDateTime(s.expiresAt) : '',
      maxViews: String(s.maxViews),
      sessionMinutes: String(Math.round(s.viewSessionTtlSeconds / 60)),
    }),
    (d) => ({
      isActive: d.isActive,
      // An empty or unreadable time is sent as typed, so the API's sentence explains it.
      expiresAt: d.expires ? (Number.isNaN(Date.parse(d.expiresAt)) ? d.expiresAt : new Date(d.expiresAt).toISOString()) : null,
      maxViews: Number(d.maxViews || 0),
      viewSessionTtlSeconds: Math.round(Number(d.sessionMinutes) * 60),
    }),
  );
  const { draft } = form;
  return (
    <SettingsSection title={t('link.access.title')} description={t('link.access.description')} form={form}>
      <Toggle
        label={t('link.access.active')}
        hint={t('link.access.activeHint')}
        checked={draft.isActive}
        onChange={(isActive) => form.set({ isActive })}
      />
      <Toggle label={t('link.access.expires')} checked={draft.expires} onChange={(expires) => form.set({ expires })} />
      {draft.expires && (
        <TextField
          type="datetime-local"
          label={t('link.access.expiresAt')}
          hint={t('link.access.expiresAtHint')}
          error={form.errorFor('expiresAt')}
          value={draft.expiresAt}
          onValue={(expiresAt) => form.set({ expiresAt })}
        />
      )}
      {!draft.expires && form.errorFor('expiresAt') && <p class="field-error">{form.errorFor('expiresAt')}</p>}
      <div class="link-settings-pair">
        <TextField
          type="number"
          inputMode="numeric"
          min={0}
          label={t('link.access.maxViews')}
          hint={t('link.access.maxViewsHint')}
          error={form.errorFor('maxViews')}
          value={draft.maxViews}
          onValue={(maxViews) => form.set({ maxViews })}
        />
        <TextField
          type="number"
          inputMode="numeric"
          min={1}
          max={1440}
          label={t('link.access.session')}
          hint={t('link.access.sessionHint')}
          error={form.errorFor('viewSessionTtlSeconds')}
          value={draft.sessionMinutes}
          onValue={(sessionMinutes) => form.set({ sessionMinutes })}
        />
      </div>
    </SettingsSection>
  );
}

export function PasswordSection({ link }: Props) {
  const form = useSettingsForm(
    link,
    ['password'],
    () => ({ password: '' }),
    (d) => ({ password: d.password }),
    { clearedWhenSaved: true },
  );
  const { hasPassword } = link.settings;
  return (
    <SettingsSection title={t('link.password.title')} description={t(hasPassword ? 'link.password.isSet' : 'link.password.isNotSet')} form={form}>
      <TextField
        type="password"
        autoComplete="new-password"
        label={t(hasPassword ? 'link.password.change' : 'link.password.set')}
        hint={t('link.password.hint')}
        error={form.errorFor('password')}
        value={form.draft.password}
        onValue={(password) => form.set({ password })}
      />
      {hasPassword && (
        <button type="button" class="button secondary small" disabled={form.busy} onClick={() => void form.save({ password: null })}>
          {t('link.password.remove')}
        </button>
      )}
    </SettingsSection>
  );
}

export function VisitorsSection({ link }: Props) {
  const form = useSettingsForm(
    link,
    ['requiresOtp', 'allowedEmails', 'allowedDomains', 'requireEmail', 'requiresApproval', 'agreementId', 'blockedEmails', 'blockedDomains'],
    ({ settings: s }) => ({
      agreementId: agreementValueOf(s.agreementId),
      requiresOtp: s.requiresOtp,
      allowedEmails: listText(s.allowedEmails),
      allowedDomains: listText(s.allowedDomains),
      requireEmail: s.requireEmail,
      requiresApproval: s.requiresApproval,
      blockedEmails: listText(s.blockedEmails),
      blockedDomains: listText(s.blockedDomains),
    }),
    (d) => ({
      agreementId: agreementIdOf(d.agreementId),
      requiresOtp: d.requiresOtp,
      allowedEmails: listItems(d.allowedEmails),
      allowedDomains: listItems(d.allowedDomains),
      requireEmail: d.requireEmail,
      requiresApproval: d.requiresApproval,
      blockedEmails: listItems(d.blockedEmails),
      blockedDomains: listItems(d.blockedDomains),
    }),
  );
  const { draft } = form;
  const errorOf = (field: 'requiresOtp' | 'requireEmail' | 'requiresApproval') => {
    const message = form.errorFor(field);
    return message && <p class="field-error">{message}</p>;
  };
  return (
    <SettingsSection title={t('link.visitors.title')} description={t('link.visitors.description')} form={form}>
      <Toggle
        label={t('link.visitors.otp')}
        hint={t('link.visitors.otpHint')}
        checked={draft.requiresOtp}
        onChange={(requiresOtp) => form.set({ requiresOtp })}
      />
      {errorOf('requiresOtp')}
      {draft.requiresOtp && (
        <div class="link-settings-pair">
          <ListField
            label={t('link.visitors.allowedEmails')}
            hint={t('link.list.hint')}
            error={form.errorFor('allowedEmails')}
            value={draft.allowedEmails}
            onValue={(allowedEmails) => form.set({ allowedEmails })}
          />
          <ListField
            label={t('link.visitors.allowedDomains')}
            hint={t('link.list.domainHint')}
            error={form.errorFor('allowedDomains')}
            value={draft.allowedDomains}
            onValue={(allowedDomains) => form.set({ allowedDomains })}
          />
        </div>
      )}
      <Toggle
        label={t('link.visitors.requireEmail')}
        hint={t('link.visitors.requireEmailHint')}
        checked={draft.requireEmail}
        onChange={(requireEmail) => form.set({ requireEmail })}
      />
      {errorOf('requireEmail')}
      <Toggle
        label={t('link.visitors.approval')}
        hint={t('link.visitors.approvalHint')}
        checked={draft.requiresApproval}
        onChange={(requiresApproval) => form.set({ requiresApproval })}
      />
      {errorOf('requiresApproval')}
      <AgreementField value={draft.agreementId} onValue={(agreementId) => form.set({ agreementId })} error={form.errorFor('agreementId')} />
      <div class="link-settings-pair">
        <ListField
          label={t('link.visitors.blockedEmails')}
          hint={t('link.list.hint')}
          error={form.errorFor('blockedEmails')}
          value={draft.blockedEmails}
          onValue={(blockedEmails) => form.set({ blockedEmails })}
        />
        <ListField
          label={t('link.visitors.blockedDomains')}
          hint={t('link.list.domainHint')}
          error={form.errorFor('blockedDomains')}
          value={draft.blockedDomains}
          onValue={(blockedDomains) => form.set({ blockedDomains })}
        />
      </div>
    </SettingsSection>
  );
}

export function DocumentSection({ link }: Props) {
  const form = useSettingsForm(
    link,
    ['hasWatermark', 'previewPages', 'allowDownload', 'requirePaymentToDownload', 'downloadPrice', 'downloadCurrency'],
    ({ settings: s }) => ({
      hasWatermark: s.hasWatermark,
      previewPages: s.previewPages === null ? '' : String(s.previewPages),
      allowDownload: s.allowDownload,
      requirePaymentToDownload: s.requirePaymentToDownload,
      downloadPrice: s.downloadPrice === null ? '' : String(s.downloadPrice / 100),
      downloadCurrency: s.downloadCurrency,
    }),
    (d) => ({
      hasWatermark: d.hasWatermark,
      previewPages: numberOrNull(d.previewPages),
      allowDownload: d.allowDownload,
      ...saleChange(d),
    }),
  );
  const { draft } = form;
  return (
    <SettingsSection title={t('link.document.title')} description={t('link.document.description')} form={form}>
      <Toggle
        label={t('link.document.watermark')}
        hint={t('link.document.watermarkHint')}
        checked={draft.hasWatermark}
        onChange={(hasWatermark) => form.set({ hasWatermark })}
      />
      <TextField
        type="number"
        inputMode="numeric"
        min={1}
        label={t('link.document.previewPages')}
        hint={t('link.document.previewPagesHint')}
        error={form.errorFor('previewPages')}
        value={draft.previewPages}
        onValue={(previewPages) => form.set({ previewPages })}
      />
      <Toggle
        label={t('link.document.download')}
        hint={t('link.document.downloadHint')}
        checked={draft.allowDownload}
        onChange={(allowDownload) => form.set({ allowDownload })}
      />
      {form.errorFor('allowDownload') && <p class="field-error">{form.errorFor('allowDownload')}</p>}
      <SaleFields draft={draft} onChange={form.set} errorFor={form.errorFor} pairClass="link-settings-pair" />
    </SettingsSection>
  );
}

export function PresentationSection({ link }: Props) {
  const form = useSettingsForm(
    link,
    ['previewTitle', 'previewDescription', 'bookingUrl', 'notifyOnView'],
    ({ settings: s }) => ({
      previewTitle: s.previewTitle ?? '',
      previewDescription: s.previewDescription ?? '',
      bookingUrl: s.bookingUrl ?? '',
      notifyOnView: s.notifyOnView,
    }),
    (d) => ({
      previewTitle: d.previewTitle.trim() || null,
      previewDescription: d.previewDescription.trim() || null,
      bookingUrl: d.bookingUrl.trim() || null,
      notifyOnView: d.notifyOnView,
    }),
  );
  const { draft } = form;
  return (
    <SettingsSection title={t('link.presentation.title')} description={t('link.presentation.description')} form={form}>
      <TextField
        label={t('link.presentation.previewTitle')}
        hint={t('link.presentation.previewTitleHint')}
        maxLength={200}
        error={form.errorFor('previewTitle')}
        value={draft.previewTitle}
        onValue={(previewTitle) => form.set({ previewTitle })}
      />
      <TextField
        label={t('link.presentation.previewDescription')}
        maxLength={500}
        error={form.errorFor('previewDescription')}
        value={draft.previewDescription}
        onValue={(previewDescription) => form.set({ previewDescription })}
      />
      <TextField
        type="url"
        label={t('link.presentation.bookingUrl')}
        hint={t('link.presentation.bookingUrlHint')}
        error={form.errorFor('bookingUrl')}
        value={draft.bookingUrl}
        onValue={(bookingUrl) => form.set({ bookingUrl })}
      />
      <Toggle
        label={t('link.presentation.notify')}
        hint={t('link.presentation.notifyHint')}
        checked={draft.notifyOnView}
        onChange={(notifyOnView) => form.set({ notifyOnView })}
      />
    </SettingsSection>
  );
}
