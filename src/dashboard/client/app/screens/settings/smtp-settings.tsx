import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { FormError, SelectField, TextField } from '../../ui/forms.js';
import { Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { saveBranding, type Branding } from './branding-api.js';

type Encryption = 'none' | 'ssl' | 'starttls';
const draftOf = (settings: Branding) => ({
  smtp_host: settings.smtp_host ?? '',
  smtp_port: settings.smtp_port === null ? '' : String(settings.smtp_port),
  smtp_encryption: (settings.smtp_encryption ?? 'starttls') as Encryption,
  smtp_username: settings.smtp_username ?? '',
  smtp_password: '',
  from_email: settings.from_email ?? '',
  from_name: settings.from_name ?? '',
});

/** The account's own mail server and sender, and a test message to the signed-in person. */
export function SmtpSettings({ settings }: { settings: Branding }) {
  const [draft, setDraft] = useState(() => draftOf(settings));
  const save = useMutation(() => {
    // An empty password field keeps the stored one; the API never returns it.
    const { smtp_password, smtp_port, ...fields } = draft;
    return saveBranding({
      ...fields,
      ...(smtp_port ? { smtp_port: Number(smtp_port) } : { smtp_port: '' }),
      ...(smtp_password ? { smtp_password } : {}),
    });
  });
  const test = useMutation(() => ok(api.POST('/api/branding/smtp/test')));
  const set = (field: keyof typeof draft) => (value: string) => setDraft({ ...draft, [field]: value });

  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run();
    if (saved) {
      setDraft(draftOf(saved));
      toast(t('settings.smtp.saved'));
    }
  };
  const sendTest = async () => {
    const sent = await test.run();
    if (sent) toast(t('settings.smtp.testSent', { email: sent.to }));
  };

  return (
    <Section title={t('settings.smtp.title')} description={t('settings.smtp.description')}>
      <form class="settings-form" onSubmit={(event) => void submit(event)}>
        <div class="settings-grid">
          <TextField label={t('settings.smtp.host')} placeholder="smtp.example.com" value={draft.smtp_host} onValue={set('smtp_host')} />
          <TextField
            label={t('settings.smtp.port')}
            type="number"
            min={1}
            max={65535}
            placeholder="587"
            value={draft.smtp_port}
            onValue={set('smtp_port')}
          />
          <SelectField
            label={t('settings.smtp.encryption')}
            value={draft.smtp_encryption}
            options={(['starttls', 'ssl', 'none'] as const).map((value) => ({ value, label: t(`settings.smtp.encryption.${value}`) }))}
            onValue={set('smtp_encryption')}
          />
          <TextField label={t('settings.smtp.username')} autoComplete="off" value={draft.smtp_username} onValue={set('smtp_username')} />
          <TextField
            label={t('settings.smtp.password')}
            type="password"
            autoComplete="new-password"
            hint={settings.smtp_password_set ? t('settings.smtp.passwordKept') : undefined}
            value={draft.smtp_password}
            onValue={set('smtp_password')}
          />
          <TextField
            label={t('settings.smtp.fromEmail')}
            type="email"
            placeholder="deals@example.com"
            value={draft.from_email}
            onValue={set('from_email')}
          />
          <TextField label={t('settings.smtp.fromName')} value={draft.from_name} onValue={set('from_name')} />
        </div>
        <FormError message={save.error?.message} />
        <FormError message={test.error?.message} />
        <div class="form-actions">
          <button type="submit" class="button" disabled={save.busy}>
            {save.busy ? t('state.saving') : t('settings.smtp.save')}
          </button>
          <button type="button" class="button secondary" disabled={test.busy || !settings.smtp_host} onClick={() => void sendTest()}>
            {test.busy ? t('settings.smtp.testing') : t('settings.smtp.test')}
          </button>
        </div>
      </form>
    </Section>
  );
}
