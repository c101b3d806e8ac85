import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { useMutation, useQuery } from '../../api/query.js';
import { formatDate, t, type MessageKey } from '../../i18n/index.js';
import { CopyButton } from '../../ui/copy-button.js';
import { useConfirm } from '../../ui/dialog.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { FormError, TextField, Toggle } from '../../ui/forms.js';
import { Chip, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { WebhookDeliveries } from './webhook-deliveries.js';

type EventType = NonNullable<paths['/api/webhooks']['post']['requestBody']>['content']['application/json']['events'][number];
const EVENTS: Array<{ type: EventType; label: MessageKey }> = [
  { type: 'link.viewed', label: 'settings.webhooks.event.viewed' },
  { type: 'link.downloaded', label: 'settings.webhooks.event.downloaded' },
  { type: 'access_request.created', label: 'settings.webhooks.event.requested' },
  { type: 'access_request.decided', label: 'settings.webhooks.event.decided' },
  { type: 'agreement.accepted', label: 'settings.webhooks.event.agreement' },
  { type: 'payment.completed', label: 'settings.webhooks.event.payment' },
];
const WEBHOOKS_KEY = 'webhooks';
const fetchWebhooks = async () => (await ok(api.GET('/api/webhooks'))).webhooks;
type Webhook = Awaited<ReturnType<typeof fetchWebhooks>>[number];

function AddWebhook({ onCreated }: { onCreated: (created: { url: string; secret: string }) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['link.viewed']);
  const add = useMutation(() => ok(api.POST('/api/webhooks', { body: { url: url.trim(), events } })), [WEBHOOKS_KEY]);
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await add.run();
    if (!created) return;
    setUrl('');
    onCreated({ url: created.url, secret: created.secret });
  };
  return (
    <form class="settings-form" onSubmit={(event) => void submit(event)}>
      <TextField type="url" label={t('settings.webhooks.url')} hint={t('settings.webhooks.urlHint')} required value={url} onValue={setUrl} />
      <fieldset class="settings-fieldset">
        <legend>{t('settings.webhooks.events')}</legend>
        {EVENTS.map(({ type, label }) => (
          <Toggle
            key={type}
            label={t(label)}
            checked={events.includes(type)}
            onChange={(on) => setEvents(on ? [...events, type] : events.filter((other) => other !== type))}
          />
        ))}
      </fieldset>
      <FormError message={add.error?.message} />
      <div class="form-actions">
        <button type="submit" class="button" disabled={add.busy || url.trim() === '' || events.length === 0}>
          {t('settings.webhooks.add')}
        </button>
      </div>
    </form>
  );
}

/** The signing secret, this once: receivers verify each message's signature with it. */
function NewSecret({ created, onDone }: { created: { url: string; secret: string }; onDone: () => void }) {
  return (
    <div class="settings-once" role="status">
      <p>
        <strong>{t('settings.webhooks.onceTitle', { url: created.url })}</strong> {t('settings.webhooks.onceText')}
      </p>
      <code class="settings-secret">{created.secret}</code>
      <div class="form-actions">
        <CopyButton text={created.secret} label={t('settings.webhooks.copySecret')} class="button" />
        <button type="button" class="button secondary" onClick={onDone}>
          {t('settings.apiKeys.done')}
        </button>
      </div>
    </div>
  );
}

function WebhookRow({ webhook, onRemove }: { webhook: Webhook; onRemove: (webhook: Webhook) => void }) {
  const path = { id: webhook.id };
  const toggle = useMutation(() => ok(api.PATCH('/api/webhooks/{id}', { params: { path }, body: { active: !webhook.active } })), [WEBHOOKS_KEY]);
  const test = useMutation(() => ok(api.POST('/api/webhooks/{id}/test', { params: { path } })), [`webhooks:deliveries:${webhook.id}`]);
  const error = (toggle.error ?? test.error)?.message;
  const [showDeliveries, setShowDeliveries] = useState(false);
  return (
    <li class="settings-row">
      <div class="settings-row-main">
        <strong class="mono">{webhook.url}</strong>
        {!webhook.active && <Chip tone="warning">{t('settings.webhooks.paused')}</Chip>}
        <p class="muted">
          {webhook.events.join(', ')} · {t('settings.webhooks.added', { date: formatDate(webhook.createdAt) })}
        </p>
        <FormError message={error} />
        <details class="settings-details" onToggle={(event) => setShowDeliveries(event.currentTarget.open)}>
          <summary>{t('settings.webhooks.deliveries')}</summary>
          {showDeliveries && <WebhookDeliveries webhookId={webhook.id} />}
        </details>
      </div>
      <div class="settings-row-actions">
        <button
          type="button"
          class="button secondary small"
          disabled={test.busy}
          onClick={() => void test.run().then((sent) => sent && toast(t('settings.webhooks.testQueued')))}
        >
          {t('settings.webhooks.test')}
        </button>
        <button type="button" class="button secondary small" disabled={toggle.busy} onClick={() => void toggle.run()}>
          {webhook.active ? t('settings.webhooks.pause') : t('settings.webhooks.resume')}
        </button>
        <button type="button" class="button secondary small" onClick={() => onRemove(webhook)}>
          {t('action.delete')}
        </button>
      </div>
    </li>
  );
}

/** Signed webhooks (Standard Webhooks) that receive the account's events: added, paused, tested, deleted. */
export function WebhooksSection() {
  const webhooks = useQuery(WEBHOOKS_KEY, fetchWebhooks);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const [confirm, confirmDialog] = useConfirm();
  const remove = useMutation((id: number) => ok(api.DELETE('/api/webhooks/{id}', { params: { path: { id } } })), [WEBHOOKS_KEY]);
  const removeWebhook = async (webhook: Webhook) => {
    const question = { title: t('settings.webhooks.deleteTitle', { url: webhook.url }), text: t('settings.webhooks.deleteText') };
    if ((await confirm(question)) && (await remove.run(webhook.id))) toast(t('settings.webhooks.deleted'));
  };
  return (
    <Section title={t('settings.webhooks.title')} description={t('settings.webhooks.description')}>
      {created ? <NewSecret created={created} onDone={() => setCreated(null)} /> : <AddWebhook onCreated={setCreated} />}
      <FormError message={remove.error?.message} />
      <QueryState query={webhooks}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState title={t('settings.webhooks.emptyTitle')} text={t('settings.webhooks.emptyText')} />
          ) : (
            <ul class="settings-list" aria-label={t('settings.webhooks.list')}>
              {list.map((webhook) => (
                <WebhookRow key={webhook.id} webhook={webhook} onRemove={(target) => void removeWebhook(target)} />
              ))}
            </ul>
          )
        }
      </QueryState>
      {confirmDialog}
    </Section>
  );
}
