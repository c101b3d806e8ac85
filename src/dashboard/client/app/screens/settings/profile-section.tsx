import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { useMe } from '../../session.js';
import { useConfirm } from '../../ui/dialog.js';
import { FormError, TextField, Toggle } from '../../ui/forms.js';
import { Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { NO_PROOF, ProofFields, proofBody, proofErrors, proofGiven, type Prover } from './proof-fields.js';
import { succeeded } from './succeeded.js';

/** Who is signed in, as GET /api/me tells it; the name and the sign-in address can be changed here. */
export function ProfileSection() {
  const me = useMe();
  return (
    <>
      <Section title={t('settings.profile.title')} description={t('settings.profile.description')}>
        {me.user && <NameForm name={me.user.name} />}
        <dl class="settings-facts">
          <dt>{t('settings.profile.email')}</dt>
          <dd>{me.user?.email ?? '—'}</dd>
          <dt>{t('settings.profile.account')}</dt>
          <dd>{me.account.name}</dd>
          <dt>{t('settings.profile.role')}</dt>
          <dd>{t(`account.role.${me.role}`)}</dd>
        </dl>
      </Section>
      {me.user && <EmailForm email={me.user.email} prover={me.user} />}
      {me.user && <ViewAlertsChoice on={me.user.viewAlerts} />}
      <PasswordForm />
      {me.user && <LeaveAccount account={me.account.name} />}
      {me.user && <DeleteSignIn email={me.user.email} accounts={me.accounts.map((account) => account.name)} prover={me.user} />}
    </>
  );
}

function NameForm({ name }: { name: string }) {
  const [draft, setDraft] = useState(name);
  const rename = useMutation(() => ok(api.PATCH('/api/me', { body: { name: draft.trim() } })), ['me']);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await rename.run()) toast(t('settings.profile.renamed'));
  };
  return (
    <form class="settings-inline-form" onSubmit={(event) => void submit(event)}>
      <TextField
        label={t('settings.profile.name')}
        autoComplete="name"
        required
        maxLength={100}
        value={draft}
        onValue={setDraft}
        error={rename.error?.message}
      />
      <button type="submit" class="button" disabled={rename.busy || draft.trim() === '' || draft.trim() === name}>
        {t('settings.profile.rename')}
      </button>
    </form>
  );
}

/**
 * Asks for another sign-in address: the API mails it a link that makes the change. It is proved
 * as the API asks: the current password when the person has one, the code when two-factor is on.
 */
function EmailForm({ email, prover }: { email: string; prover: Prover }) {
  const [newEmail, setNewEmail] = useState('');
  const [proof, setProof] = useState(NO_PROOF);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const request = useMutation(() => succeeded(api.POST('/api/me/email', { body: { email: newEmail.trim(), ...proofBody(prover, proof) } })));
  // 400 and 409: the address (not one, or taken); 422: the proof.
  const error = request.error;
  const emailError = error?.status === 400 || error?.status === 409 ? error.message : undefined;
  const proofError = error?.status === 422 ? error.message : undefined;
  const formError = error && !emailError && !proofError ? error.message : proofErrors(prover, proofError).form;

  const submit = async (event: Event) => {
    event.preventDefault();
    const to = newEmail.trim();
    if (await request.run()) {
      setNewEmail('');
      setProof(NO_PROOF);
      setSentTo(to);
    }
  };

  return (
    <Section title={t('settings.email.title')} description={t('settings.email.description', { email })}>
      <form class="settings-form" onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label={t('settings.email.new')}
          type="email"
          autoComplete="email"
          required
          maxLength={254}
          value={newEmail}
          onValue={setNewEmail}
          error={emailError}
        />
        <ProofFields prover={prover} proof={proof} onProof={setProof} error={proofError} />
        <FormError message={formError} />
        <div role="status">{sentTo && <p class="notice-success">{t('settings.email.sent', { email: sentTo })}</p>}</div>
        <div class="form-actions">
          <button type="submit" class="button" disabled={request.busy || newEmail.trim() === '' || !proofGiven(prover, proof)}>
            {request.busy ? t('state.saving') : t('settings.email.submit')}
          </button>
        </div>
      </form>
    </Section>
  );
}

/**
 * Whether the person is e-mailed about views of the links they made; saved as it is switched. It
 * stays enabled while saving, so keyboard focus stays on it; a failed save switches it back.
 */
function ViewAlertsChoice({ on }: { on: boolean }) {
  const [checked, setChecked] = useState(on);
  const save = useMutation((viewAlerts: boolean) => ok(api.PATCH('/api/me', { body: { viewAlerts } })), ['me']);
  const change = async (viewAlerts: boolean) => {
    setChecked(viewAlerts);
    if (await save.run(viewAlerts)) toast(t(viewAlerts ? 'settings.viewAlertsMine.on' : 'settings.viewAlertsMine.off'));
    else setChecked(!viewAlerts);
  };
  return (
    <Section title={t('settings.viewAlertsMine.title')} description={t('settings.viewAlertsMine.description')}>
      <Toggle label={t('settings.viewAlertsMine.label')} checked={checked} onChange={(next) => void change(next)} />
      <FormError message={save.error?.message} />
    </Section>
  );
}

const EMPTY = { current: '', next: '', repeat: '' };

/** Changes the password with the current one; the API ends the person's other sessions. */
function PasswordForm() {
  const [fields, setFields] = useState(EMPTY);
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation(() => succeeded(api.POST('/api/me/password', { body: { currentPassword: fields.current, newPassword: fields.next } })));
  const set = (name: keyof typeof EMPTY) => (value: string) => setFields({ ...fields, [name]: value });
  // 422: the current password is wrong; 400: the new one breaks the length rule. Anything else is the form's.
  const error = change.error;
  const currentError = error?.status === 422 ? error.message : undefined;
  const nextError = error?.status === 400 ? error.message : undefined;
  const formError = error && !currentError && !nextError ? error.message : undefined;

  const submit = async (event: Event) => {
    event.preventDefault();
    setMismatch(fields.next !== fields.repeat);
    if (fields.next !== fields.repeat) return;
    if (await change.run()) {
      setFields(EMPTY);
      toast(t('settings.password.changed'));
    }
  };

  return (
    <Section title={t('settings.password.title')} description={t('settings.password.description')}>
      <form class="settings-form" onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          label={t('settings.password.current')}
          type="password"
          autoComplete="current-password"
          required
          value={fields.current}
          onValue={set('current')}
          error={currentError}
        />
        <TextField
          label={t('settings.password.new')}
          hint={t('settings.password.newHint')}
          type="password"
          autoComplete="new-password"
          required
          value={fields.next}
          onValue={set('next')}
          error={nextError}
        />
        <TextField
          label={t('settings.password.repeat')}
          type="password"
          autoComplete="new-password"
          required
          value={fields.repeat}
          onValue={set('repeat')}
          error={mismatch ? t('settings.password.mismatch') : undefined}
        />
        <FormError message={formError} />
        <div class="form-actions">
          <button type="submit" class="button" disabled={change.busy || fields.current === '' || fields.next === ''}>
            {change.busy ? t('state.saving') : t('settings.password.submit')}
          </button>
        </div>
      </form>
    </Section>
  );
}

/** Leaves the account, after asking; the API ends this session with the others in it, so the page goes to sign-in. */
function LeaveAccount({ account }: { account: string }) {
  const [confirm, confirmDialog] = useConfirm();
  const leave = useMutation(() => succeeded(api.DELETE('/api/me/membership', {})));
  const submit = async () => {
    const question = {
      title: t('settings.leave.confirmTitle', { account }),
      text: t('settings.leave.confirmText'),
      action: t('settings.leave.confirm'),
    };
    if ((await confirm(question)) && (await leave.run())) location.assign('/sign-in');
  };
  return (
    <Section title={t('settings.leave.title')} description={t('settings.leave.description', { account })}>
      <FormError message={leave.error?.message} />
      <div class="form-actions">
        <button type="button" class="button danger" disabled={leave.busy} onClick={() => void submit()}>
          {t('settings.leave.submit', { account })}
        </button>
      </div>
      {confirmDialog}
    </Section>
  );
}

/** Deletes the person's sign-in, once proved and confirmed: they leave every account, then go to the sign-in page. */
function DeleteSignIn({ email, accounts, prover }: { email: string; accounts: string[]; prover: Prover }) {
  const [proof, setProof] = useState(NO_PROOF);
  const [confirm, confirmDialog] = useConfirm();
  const remove = useMutation(() => succeeded(api.DELETE('/api/me', { body: proofBody(prover, proof) })));
  const submit = async (event: Event) => {
    event.preventDefault();
    const question = {
      title: t('settings.deleteMe.confirmTitle'),
      text: t('settings.deleteMe.confirmText'),
      action: t('settings.deleteMe.confirm'),
    };
    if ((await confirm(question)) && (await remove.run())) location.assign('/sign-in');
  };
  return (
    <Section title={t('settings.deleteMe.title')} description={t('settings.deleteMe.description', { accounts: accounts.join(', '), email })}>
      <form class="settings-form" onSubmit={(event) => void submit(event)} noValidate>
        {/* A 422 is the proof or the last owner's refusal: the answer alone tells which, so it shows below the form. */}
        <ProofFields prover={prover} proof={proof} onProof={setProof} />
        <FormError message={remove.error?.message} />
        <div class="form-actions">
          <button type="submit" class="button danger" disabled={remove.busy || !proofGiven(prover, proof)}>
            {remove.busy ? t('state.deleting') : t('settings.deleteMe.submit')}
          </button>
        </div>
      </form>
      {confirmDialog}
    </Section>
  );
}
