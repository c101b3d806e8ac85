import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { ErrorMessage, Skeleton } from '../../ui/feedback.js';
import { FormError, TextField } from '../../ui/forms.js';
import { Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { useMe } from '../../session.js';
import { NO_PROOF, ProofFields, proofBody, proofErrors, proofGiven, type Prover } from './proof-fields.js';
import { succeeded } from './succeeded.js';

interface Account {
  name: string;
  email: string;
  plan: string;
}

/**
 * The account itself, for its owners: its name and the address mail goes to when no one else is
 * to be told; then the way to delete it.
 */
export function AccountSection() {
  const account = useQuery('account', () => ok(api.GET('/api/account')));
  const me = useMe();
  return (
    <>
      <Section title={t('settings.account.title')} description={t('settings.account.description')}>
        {account.error && <ErrorMessage message={account.error.message} onRetry={() => void account.refetch()} />}
        {!account.data && !account.error && <Skeleton rows={2} />}
        {account.data && <AccountForm account={account.data} />}
      </Section>
      {account.data && me.user && <DeleteAccount account={account.data.name} prover={me.user} />}
    </>
  );
}

function AccountForm({ account }: { account: Account }) {
  const [draft, setDraft] = useState({ name: account.name, email: account.email });
  const save = useMutation(() => ok(api.PATCH('/api/account', { body: { name: draft.name.trim(), email: draft.email.trim() } })), ['account', 'me']);
  const error = save.error;
  // 409 and 400: the address; 422: the name. Anything else is the form's.
  const emailError = error?.status === 409 || error?.status === 400 ? error.message : undefined;
  const nameError = error?.status === 422 ? error.message : undefined;
  const formError = error && !emailError && !nameError ? error.message : undefined;
  const unchanged = draft.name.trim() === account.name && draft.email.trim() === account.email;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await save.run()) toast(t('settings.account.saved'));
  };

  return (
    <form class="settings-form" onSubmit={(event) => void submit(event)} noValidate>
      <TextField
        label={t('settings.account.name')}
        required
        maxLength={100}
        value={draft.name}
        onValue={(name) => setDraft({ ...draft, name })}
        error={nameError}
      />
      <TextField
        label={t('settings.account.email')}
        hint={t('settings.account.emailHint')}
        type="email"
        autoComplete="email"
        required
        maxLength={254}
        value={draft.email}
        onValue={(email) => setDraft({ ...draft, email })}
        error={emailError}
      />
      <FormError message={formError} />
      <div class="form-actions">
        <button type="submit" class="button" disabled={save.busy || unchanged || draft.name.trim() === '' || draft.email.trim() === ''}>
          {save.busy ? t('state.saving') : t('settings.account.save')}
        </button>
      </div>
    </form>
  );
}

/**
 * Deletes the account for good: the API asks its name typed out and the person's proof, as a
 * sign-in would. Every session in the account ends with it, this one too.
 */
function DeleteAccount({ account, prover }: { account: string; prover: Prover }) {
  const [typed, setTyped] = useState('');
  const [proof, setProof] = useState(NO_PROOF);
  const remove = useMutation(() => succeeded(api.DELETE('/api/account', { body: { accountName: typed.trim(), ...proofBody(prover, proof) } })));
  const proofError = remove.error?.status === 422 && typed.trim() === account ? remove.error.message : undefined;
  const nameError = remove.error?.status === 422 && !proofError ? remove.error.message : undefined;
  const formError = remove.error && remove.error.status !== 422 ? remove.error.message : proofErrors(prover, proofError).form;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await remove.run()) location.assign('/sign-in');
  };

  return (
    <Section title={t('settings.deleteAccount.title')} description={t('settings.deleteAccount.description', { account })}>
      <form class="settings-form" onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label={t('settings.deleteAccount.name', { account })}
          autoComplete="off"
          required
          maxLength={254}
          value={typed}
          onValue={setTyped}
          error={nameError}
        />
        <ProofFields prover={prover} proof={proof} onProof={setProof} error={proofError} />
        <FormError message={formError} />
        <div class="form-actions">
          <button type="submit" class="button danger" disabled={remove.busy || typed.trim() !== account || !proofGiven(prover, proof)}>
            {remove.busy ? t('state.deleting') : t('settings.deleteAccount.submit', { account })}
          </button>
        </div>
      </form>
    </Section>
  );
}
