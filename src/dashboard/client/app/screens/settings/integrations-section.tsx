import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { formatDate, t } from '../../i18n/index.js';
import { useConfirm } from '../../ui/dialog.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { FormError, SelectField, TextField } from '../../ui/forms.js';
import { Chip, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';

type ChatService = 'slack' | 'teams';
const fetchIntegrations = async () => (await ok(api.GET('/api/integrations'))).integrations;
const serviceName = (type: ChatService) => t(`settings.integrations.${type}`);

/** Slack and Teams channels that receive the account's events. */
export function IntegrationsSection() {
  const integrations = useQuery('integrations', fetchIntegrations);
  const [confirm, confirmDialog] = useConfirm();
  const remove = useMutation((id: number) => ok(api.DELETE('/api/integrations/{id}', { params: { path: { id } } })), ['integrations']);
  const test = useMutation((id: number) => ok(api.POST('/api/integrations/{id}/test', { params: { path: { id } } })));
  const sendTest = async (integration: { id: number; type: ChatService }) => {
    if (await test.run(integration.id)) toast(t('settings.integrations.testSent', { service: serviceName(integration.type) }));
  };
  const removeIntegration = async (integration: { id: number; type: ChatService }) => {
    const question = {
      title: t('settings.integrations.removeTitle', { service: serviceName(integration.type) }),
      action: t('settings.integrations.remove'),
    };
    if ((await confirm(question)) && (await remove.run(integration.id))) toast(t('settings.integrations.removed'));
  };
  return (
    <Section title={t('settings.integrations.title')} description={t('settings.integrations.description')}>
      <AddIntegration />
      <FormError message={(remove.error ?? test.error)?.message} />
      <QueryState query={integrations}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState title={t('settings.integrations.emptyTitle')} text={t('settings.integrations.emptyText')} />
          ) : (
            <ul class="settings-list">
              {list.map((integration) => (
                <li key={integration.id} class="settings-row">
                  <div class="settings-row-main">
                    <strong>{serviceName(integration.type)}</strong>
                    {integration.channel && <span>{integration.channel}</span>}
                    {!integration.enabled && <Chip tone="warning">{t('settings.integrations.disabled')}</Chip>}
                    <p class="muted">{t('settings.integrations.added', { date: formatDate(integration.created_at) })}</p>
                  </div>
                  <div class="settings-row-actions">
                    <button type="button" class="button secondary small" disabled={test.busy} onClick={() => void sendTest(integration)}>
                      {t('settings.integrations.test')}
                    </button>
                    <button type="button" class="button secondary small" disabled={remove.busy} onClick={() => void removeIntegration(integration)}>
                      {t('settings.integrations.remove')}
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </QueryState>
      {confirmDialog}
    </Section>
  );
}

function AddIntegration() {
  const [type, setType] = useState<ChatService>('slack');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [channel, setChannel] = useState('');
  const add = useMutation(
    () =>
      ok(
        api.POST('/api/integrations', {
          body: { type, config: { webhook_url: webhookUrl.trim(), ...(channel.trim() ? { channel: channel.trim() } : {}) } },
        }),
      ),
    ['integrations'],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await add.run()) {
      setWebhookUrl('');
      setChannel('');
      toast(t('settings.integrations.addedToast'));
    }
  };
  return (
    <form class="settings-form settings-add" onSubmit={(event) => void submit(event)}>
      <div class="settings-grid">
        <SelectField
          label={t('settings.integrations.type')}
          value={type}
          options={(['slack', 'teams'] as const).map((value) => ({ value, label: serviceName(value) }))}
          onValue={setType}
        />
        <TextField label={t('settings.integrations.channel')} hint={t('settings.integrations.channelHint')} value={channel} onValue={setChannel} />
      </div>
      <TextField
        label={t('settings.integrations.webhookUrl')}
        hint={t(`settings.integrations.urlHint.${type}`)}
        type="url"
        required
        value={webhookUrl}
        onValue={setWebhookUrl}
        error={add.error?.message}
      />
      <div class="form-actions">
        <button type="submit" class="button" disabled={add.busy || webhookUrl.trim() === ''}>
          {t('settings.integrations.add')}
        </button>
      </div>
    </form>
  );
}
