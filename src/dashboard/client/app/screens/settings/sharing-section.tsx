import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { QueryState } from '../../ui/feedback.js';
import { FormError, ListField, SelectField, listItems, listText } from '../../ui/forms.js';
import { Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';

type BlockList = { emails: string[]; domains: string[] };
type AlertMode = 'each' | 'daily';
const fetchBlockList = () => ok(api.GET('/api/block-list'));
const fetchViewAlerts = () => ok(api.GET('/api/view-alerts'));

/** The account's sharing policy: who is refused on every link, and how view alerts arrive. */
export function SharingSection() {
  const blockList = useQuery('block-list', fetchBlockList);
  const alerts = useQuery('view-alerts', fetchViewAlerts);
  return (
    <>
      <Section title={t('settings.blockList.title')} description={t('settings.blockList.description')}>
        <QueryState query={blockList}>{(list) => <BlockListForm list={list} />}</QueryState>
      </Section>
      <Section title={t('settings.viewAlerts.title')} description={t('settings.viewAlerts.description')}>
        <QueryState query={alerts}>{(current) => <ViewAlertsForm mode={current.mode} />}</QueryState>
      </Section>
    </>
  );
}

function BlockListForm({ list }: { list: BlockList }) {
  const [emails, setEmails] = useState(listText(list.emails));
  const [domains, setDomains] = useState(listText(list.domains));
  const save = useMutation(
    () => ok(api.PUT('/api/block-list', { body: { emails: listItems(emails), domains: listItems(domains) } })),
    ['block-list'],
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run();
    if (saved) {
      setEmails(saved.emails.join('\n'));
      setDomains(saved.domains.join('\n'));
      toast(t('action.saved'));
    }
  };
  return (
    <form class="settings-form" onSubmit={(event) => void submit(event)}>
      <ListField label={t('settings.blockList.emails')} hint={t('settings.blockList.emailsHint')} value={emails} onValue={setEmails} />
      <ListField label={t('settings.blockList.domains')} hint={t('settings.blockList.domainsHint')} value={domains} onValue={setDomains} />
      <FormError message={save.error?.message} />
      <div class="form-actions">
        <button type="submit" class="button" disabled={save.busy}>
          {t('action.save')}
        </button>
      </div>
    </form>
  );
}

function ViewAlertsForm({ mode }: { mode: AlertMode }) {
  const save = useMutation((next: AlertMode) => ok(api.PUT('/api/view-alerts', { body: { mode: next } })), ['view-alerts']);
  const choose = async (next: AlertMode) => {
    if (await save.run(next)) toast(t('action.saved'));
  };
  return (
    <>
      <SelectField
        label={t('settings.viewAlerts.mode')}
        value={mode}
        options={[
          { value: 'each', label: t('settings.viewAlerts.each') },
          { value: 'daily', label: t('settings.viewAlerts.daily') },
        ]}
        onValue={(next) => void choose(next)}
      />
      <FormError message={save.error?.message} />
    </>
  );
}
