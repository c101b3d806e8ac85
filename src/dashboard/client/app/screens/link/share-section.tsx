import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { t, tn } from '../../i18n/index.js';
import { Field, FormError, ListField, listItems } from '../../ui/forms.js';
import { Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import type { LinkDetail } from './link-data.js';

/** Mails the viewer link to up to 50 people, with an optional note (POST /api/links/{id}/share). */
export function ShareSection({ link }: { link: LinkDetail }) {
  const [emails, setEmails] = useState('');
  const [message, setMessage] = useState('');
  const recipients = listItems(emails);
  const send = useMutation(() =>
    ok(api.POST('/api/links/{id}/share', { params: { path: { id: link.id } }, body: { emails: recipients, message: message.trim() || undefined } })),
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!(await send.run())) return;
    toast(tn('link.share.sent', recipients.length));
    setEmails('');
    setMessage('');
  };
  return (
    <Section title={t('link.share.title')} description={t('link.share.description')}>
      <form class="link-settings-form" noValidate onSubmit={(event) => void submit(event)}>
        <FormError message={send.error?.message} />
        <ListField label={t('link.share.emails')} hint={t('link.share.emailsHint')} value={emails} onValue={setEmails} />
        <Field label={t('link.share.message')} hint={t('link.share.messageHint')}>
          {(control) => (
            <textarea
              class="input list-input"
              rows={3}
              maxLength={2000}
              {...control}
              value={message}
              onInput={(event) => setMessage(event.currentTarget.value)}
            />
          )}
        </Field>
        <div class="form-actions">
          <button type="submit" class="button" disabled={send.busy || recipients.length === 0}>
            {send.busy ? t('link.share.sending') : t('link.share.send')}
          </button>
        </div>
      </form>
    </Section>
  );
}
