import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { formatDateTime, formatNumber, t } from '../../i18n/index.js';
import { useCan } from '../../session.js';
import { CopyButton } from '../../ui/copy-button.js';
import { useConfirm } from '../../ui/dialog.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { FormError, TextField } from '../../ui/forms.js';
import { Chip, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';

type ApiKey = Awaited<ReturnType<typeof fetchKeys>>[number];
const fetchKeys = async () => (await ok(api.GET('/api/api-keys'))).api_keys;

/** The account's API keys: a new key is shown once, the list shows only each key's visible prefix. */
export function ApiKeysSection() {
  const keys = useQuery('api-keys', fetchKeys);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  return (
    <Section title={t('settings.apiKeys.title')} description={t('settings.apiKeys.description')}>
      {created ? <NewKey created={created} onDone={() => setCreated(null)} /> : <CreateKeyForm onCreated={setCreated} />}
      <QueryState query={keys}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState title={t('settings.apiKeys.emptyTitle')} text={t('settings.apiKeys.emptyText')} />
          ) : (
            <KeyTable keys={list} />
          )
        }
      </QueryState>
    </Section>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (created: { name: string; key: string }) => void }) {
  const [name, setName] = useState('');
  const create = useMutation(() => ok(api.POST('/api/api-keys', { body: { name: name.trim() } })), ['api-keys']);
  const submit = async (event: Event) => {
    event.preventDefault();
    const answer = await create.run();
    if (answer) {
      setName('');
      onCreated({ name: answer.api_key.name, key: answer.api_key.key });
    }
  };
  return (
    <form class="settings-inline-form" onSubmit={(event) => void submit(event)}>
      <TextField
        label={t('settings.apiKeys.name')}
        hint={t('settings.apiKeys.nameHint')}
        required
        maxLength={100}
        value={name}
        onValue={setName}
        error={create.error?.message}
      />
      <button type="submit" class="button" disabled={create.busy || name.trim() === ''}>
        {t('settings.apiKeys.create')}
      </button>
    </form>
  );
}

/** The whole key, this once: the API keeps only its hash. */
function NewKey({ created, onDone }: { created: { name: string; key: string }; onDone: () => void }) {
  return (
    <div class="settings-once" role="status">
      <p>
        <strong>{t('settings.apiKeys.onceTitle', { name: created.name })}</strong> {t('settings.apiKeys.onceText')}
      </p>
      <code class="settings-secret settings-new-key">{created.key}</code>
      <div class="form-actions">
        <CopyButton text={created.key} label={t('settings.apiKeys.copy')} class="button" />
        <button type="button" class="button secondary" onClick={onDone}>
          {t('settings.apiKeys.done')}
        </button>
      </div>
    </div>
  );
}

/** Who made the key, and the role it acts with now (a command-line key acts as owner). */
function makerNote(key: ApiKey): string {
  if (!key.created_by) return t('settings.apiKeys.commandLine');
  const made = t('settings.apiKeys.madeBy', { name: key.created_by.name });
  return key.acts_as ? `${made} · ${t(`settings.apiKeys.actsAs.${key.acts_as}`)}` : made;
}

function KeyTable({ keys }: { keys: ApiKey[] }) {
  const can = useCan();
  const [confirm, confirmDialog] = useConfirm();
  const toggle = useMutation((id: number) => ok(api.PUT('/api/api-keys/{id}/toggle', { params: { path: { id } } })), ['api-keys']);
  const revoke = useMutation((id: number) => ok(api.DELETE('/api/api-keys/{id}', { params: { path: { id } } })), ['api-keys']);
  const revokeKey = async (key: ApiKey) => {
    const question = {
      title: t('settings.apiKeys.revokeTitle', { name: key.name }),
      text: t('settings.apiKeys.revokeText'),
      action: t('settings.apiKeys.revoke'),
    };
    if ((await confirm(question)) && (await revoke.run(key.id))) toast(t('settings.apiKeys.revoked', { name: key.name }));
  };
  return (
    <>
      <FormError message={toggle.error?.message ?? revoke.error?.message} />
      <div class="table-wrap" tabIndex={0} role="region" aria-label={t('settings.apiKeys.title')}>
        <table class="table">
          <caption class="visually-hidden">{t('settings.apiKeys.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('settings.apiKeys.name')}</th>
              <th scope="col">{t('settings.apiKeys.key')}</th>
              <th scope="col">{t('settings.apiKeys.status')}</th>
              <th scope="col" class="numeric">
                {t('settings.apiKeys.requests')}
              </th>
              <th scope="col">{t('settings.apiKeys.lastUsed')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('settings.apiKeys.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <td>
                  {key.name}
                  <span class="muted settings-cell-note">{makerNote(key)}</span>
                </td>
                <td>
                  <code>{key.key_prefix}</code>
                </td>
                <td>
                  <Chip tone={key.active ? 'success' : 'neutral'}>{key.active ? t('settings.apiKeys.active') : t('settings.apiKeys.inactive')}</Chip>
                </td>
                <td class="numeric">{formatNumber(key.total_requests)}</td>
                <td>{formatDateTime(key.last_used_at)}</td>
                <td>
                  {key.acts_as === 'owner' && !can('owners') ? (
                    <span class="muted">{t('settings.apiKeys.ownersOnly')}</span>
                  ) : (
                    <div class="settings-cell-actions">
                      <button
                        type="button"
                        class="button secondary small"
                        disabled={toggle.busy}
                        aria-label={t(key.active ? 'settings.apiKeys.deactivateNamed' : 'settings.apiKeys.activateNamed', { name: key.name })}
                        onClick={() => void toggle.run(key.id)}
                      >
                        {key.active ? t('settings.apiKeys.deactivate') : t('settings.apiKeys.activate')}
                      </button>
                      <button
                        type="button"
                        class="button danger small"
                        disabled={revoke.busy}
                        aria-label={t('settings.apiKeys.revokeNamed', { name: key.name })}
                        onClick={() => void revokeKey(key)}
                      >
                        {t('settings.apiKeys.revoke')}
                      </button>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {confirmDialog}
    </>
  );
}
