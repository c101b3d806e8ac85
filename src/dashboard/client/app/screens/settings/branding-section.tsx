import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { invalidate, useMutation, useQuery } from '../../api/query.js';
import { t, type MessageKey } from '../../i18n/index.js';
import { applyBrandColour } from '../../layout/brand.js';
import { QueryState } from '../../ui/feedback.js';
import { Field, FormError, SelectField, TextField } from '../../ui/forms.js';
import { changedFields } from '../../ui/draft.js';
import { Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { fetchBranding, saveBranding, type Branding } from './branding-api.js';
import { ColourField } from './colour-field.js';
import { ContrastNotice } from './contrast-notice.js';
import { CustomDomain } from './custom-domain.js';
import { SmtpSettings } from './smtp-settings.js';
import { VisitorPreview, type PreviewLook } from './visitor-preview.js';

export function BrandingSection() {
  const branding = useQuery('branding', fetchBranding);
  return (
    <QueryState query={branding} rows={6}>
      {(settings) => (
        <>
          <Appearance settings={settings} />
          <CustomDomain settings={settings} />
          <SmtpSettings settings={settings} />
        </>
      )}
    </QueryState>
  );
}

const COLOURS: Array<[keyof PreviewLook, MessageKey]> = [
  ['primary_color', 'settings.branding.primary'],
  ['btn_text_color', 'settings.branding.buttonText'],
  ['bg_color', 'settings.branding.background'],
  ['text_color', 'settings.branding.text'],
  ['card_bg_color', 'settings.branding.card'],
  ['card_border_color', 'settings.branding.cardBorder'],
];
const LOCALES = ['en', 'es', 'fr', 'pt', 'it'] as const;

type Look = PreviewLook & { logo_size: string; email_locale: Branding['email_locale'] };
const lookOf = (settings: Branding): Look => ({
  company_name: settings.company_name ?? '',
  primary_color: settings.primary_color,
  bg_color: settings.bg_color,
  btn_text_color: settings.btn_text_color,
  btn_radius: settings.btn_radius,
  card_bg_color: settings.card_bg_color,
  card_border_color: settings.card_border_color,
  text_color: settings.text_color,
  logo_size: String(settings.logo_size),
  email_locale: settings.email_locale,
});

/** The look as POST /api/branding takes it. */
const valuesOf = ({ logo_size, ...fields }: Look) => ({ ...fields, logo_size: Number(logo_size) });

/**
 * What visitors see (colours, name, logo) and the language of the account's e-mails, beside a live
 * preview. Save sends the fields changed: a colleague's change to another one stays.
 */
function Appearance({ settings }: { settings: Branding }) {
  const [look, setLook] = useState(() => lookOf(settings));
  const [logo, setLogo] = useState<File | null>(null);
  const save = useMutation((values: Partial<ReturnType<typeof valuesOf>>) => {
    if (!logo) return saveBranding(values);
    const form = new FormData();
    for (const [name, value] of Object.entries(values)) form.append(name, String(value));
    form.append('logo', logo);
    return saveBranding(form);
  });
  const removeLogo = useMutation(async () => {
    await ok(api.DELETE('/api/branding/logo'));
    await invalidate('branding');
  });
  const set = (field: keyof Look) => (value: string) => setLook({ ...look, [field]: value });

  const submit = async (event: Event) => {
    event.preventDefault();
    const values = changedFields(valuesOf(look), valuesOf(lookOf(settings)));
    if (Object.keys(values).length === 0 && !logo) return toast(t('state.unchanged'));
    const saved = await save.run(values);
    if (saved) {
      setLook(lookOf(saved));
      setLogo(null);
      applyBrandColour(saved.primary_color);
      toast(t('settings.branding.saved'));
    }
  };

  return (
    <Section title={t('settings.branding.title')} description={t('settings.branding.description')}>
      <div class="settings-branding">
        <form class="settings-form" onSubmit={(event) => void submit(event)}>
          <TextField label={t('settings.branding.company')} maxLength={200} value={look.company_name} onValue={set('company_name')} />
          <div class="settings-colours">
            {COLOURS.map(([field, label]) => (
              <ColourField
                key={field}
                label={t(label)}
                hexLabel={t('settings.branding.hex', { name: t(label) })}
                value={look[field]}
                onValue={set(field)}
              />
            ))}
          </div>
          <ContrastNotice look={look} onFix={(field, colour) => set(field)(colour)} />
          <TextField
            label={t('settings.branding.radius')}
            hint={t('settings.branding.radiusHint')}
            value={look.btn_radius}
            onValue={set('btn_radius')}
          />
          <Field label={t('settings.branding.logo')} hint={t('settings.branding.logoHint')}>
            {(control) => (
              <input
                {...control}
                type="file"
                class="input"
                accept="image/png,image/jpeg,image/webp"
                onChange={(event) => setLogo(event.currentTarget.files?.[0] ?? null)}
              />
            )}
          </Field>
          {settings.logo_url && (
            <p class="settings-logo-row">
              <img src={settings.logo_url} alt={t('settings.branding.currentLogo')} class="settings-logo" />
              <button type="button" class="button secondary small" disabled={removeLogo.busy} onClick={() => void removeLogo.run()}>
                {t('settings.branding.removeLogo')}
              </button>
            </p>
          )}
          <TextField label={t('settings.branding.logoSize')} type="number" min={16} max={512} value={look.logo_size} onValue={set('logo_size')} />
          <SelectField
            label={t('settings.branding.locale')}
            hint={t('settings.branding.localeHint')}
            value={look.email_locale}
            options={LOCALES.map((locale) => ({ value: locale, label: t(`settings.branding.locale.${locale}`) }))}
            onValue={set('email_locale')}
          />
          <FormError message={save.error?.message ?? removeLogo.error?.message} />
          <div class="form-actions">
            <button type="submit" class="button" disabled={save.busy}>
              {save.busy ? t('state.saving') : t('settings.branding.save')}
            </button>
          </div>
        </form>
        <VisitorPreview look={look} logoUrl={settings.logo_url} />
      </div>
    </Section>
  );
}
