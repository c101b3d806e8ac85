import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { invalidate, useMutation } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { CopyButton } from '../../ui/copy-button.js';
import { FormError, TextField } from '../../ui/forms.js';
import { Chip, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { saveBranding, type Branding } from './branding-api.js';

/** Claim a domain, publish the TXT record shown, then verify it. */
export function CustomDomain({ settings }: { settings: Branding }) {
  const [domain, setDomain] = useState(settings.custom_domain ?? '');
  const claim = useMutation(() => saveBranding({ custom_domain: domain.trim() }));
  const verify = useMutation(async () => {
    const verified = await ok(api.POST('/api/branding/domain/verify'));
    await invalidate('branding');
    return verified;
  });
  const record = settings.custom_domain_verification;
  const status = settings.custom_domain_status;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await claim.run()) toast(domain.trim() ? t('settings.domain.claimed') : t('settings.domain.removed'));
  };

  return (
    <Section
      title={t('settings.domain.title')}
      description={t('settings.domain.description')}
      actions={status && <Chip tone={status === 'verified' ? 'success' : 'warning'}>{t(`settings.domain.${status}`)}</Chip>}
    >
      <form class="settings-inline-form" onSubmit={(event) => void submit(event)}>
        <TextField
          label={t('settings.domain.domain')}
          placeholder="docs.example.com"
          value={domain}
          onValue={setDomain}
          error={claim.error?.message}
        />
        <button type="submit" class="button secondary" disabled={claim.busy}>
          {t('settings.domain.save')}
        </button>
      </form>
      {record && (
        <div class="settings-dns">
          <p>{t('settings.domain.instructions')}</p>
          <dl class="settings-facts">
            <dt>{t('settings.domain.recordType')}</dt>
            <dd>
              <code>{record.type}</code>
            </dd>
            <dt>{t('settings.domain.recordName')}</dt>
            <dd>
              <code>{record.name}</code> <CopyButton text={record.name} label={t('action.copy')} />
            </dd>
            <dt>{t('settings.domain.recordValue')}</dt>
            <dd>
              <code class="settings-secret">{record.value}</code> <CopyButton text={record.value} label={t('action.copy')} />
            </dd>
          </dl>
          <FormError message={verify.error?.message} />
          <button
            type="button"
            class="button"
            disabled={verify.busy}
            onClick={() => void verify.run().then((done) => done && toast(t('settings.domain.verifiedToast')))}
          >
            {t('settings.domain.verify')}
          </button>
        </div>
      )}
    </Section>
  );
}
