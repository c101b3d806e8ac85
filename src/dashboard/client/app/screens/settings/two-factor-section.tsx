import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { invalidate, useMutation } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { useMe } from '../../session.js';
import { CopyButton } from '../../ui/copy-button.js';
import { fieldOfError } from '../link/link-data.js';
import { FormError, TextField } from '../../ui/forms.js';
import { Chip, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { succeeded } from './succeeded.js';

type Enrolment = { otpauthUri: string; qrCodeSvg: string };

/** The secret inside the otpauth URI, for people who type it instead of scanning. */
const secretOf = (uri: string) => new URL(uri).searchParams.get('secret') ?? '';

/** Two-factor sign-in: enrol (QR code, then a code), see the recovery codes once, or turn it off. */
export function TwoFactorSection() {
  const me = useMe();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  // Turned on here: GET /api/me is read again once the codes are put away (or the section is left),
  // so that the codes stay on screen until then; it is on meanwhile all the same.
  const on = (me.user?.twoFactor ?? false) || recoveryCodes !== null;
  const codesShown = useRef(false);
  codesShown.current = recoveryCodes !== null;
  useEffect(
    () => () => {
      if (codesShown.current) void invalidate('me');
    },
    [],
  );
  return (
    <Section
      title={t('settings.twoFactor.title')}
      description={t('settings.twoFactor.description')}
      actions={<Chip tone={on ? 'success' : 'neutral'}>{on ? t('settings.twoFactor.on') : t('settings.twoFactor.off')}</Chip>}
    >
      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />
      ) : on ? (
        <DisableTwoFactor />
      ) : (
        <EnrolTwoFactor onConfirmed={setRecoveryCodes} />
      )}
    </Section>
  );
}

function EnrolTwoFactor({ onConfirmed }: { onConfirmed: (codes: string[]) => void }) {
  const me = useMe();
  const asksPassword = me.user?.hasPassword ?? false;
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const start = useMutation(() => ok(api.POST('/api/me/two-factor')));
  const confirm = useMutation(() => ok(api.POST('/api/me/two-factor/confirm', { body: { code: code.trim(), ...(asksPassword && { password }) } })));
  const message = confirm.error?.message;
  const errorOf = (field: 'code' | 'password') =>
    message && (fieldOfError(message, ['password', 'code']) ?? 'code') === field ? message : undefined;

  if (!enrolment) {
    return (
      <div>
        <FormError message={start.error?.message} />
        <button
          type="button"
          class="button"
          disabled={start.busy}
          onClick={() => void start.run().then((started) => started && setEnrolment(started))}
        >
          {t('settings.twoFactor.start')}
        </button>
      </div>
    );
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    const confirmed = await confirm.run();
    // GET /api/me is refetched after the codes are put away, so they stay on screen until then.
    if (confirmed) onConfirmed(confirmed.recoveryCodes);
  };

  return (
    <div class="settings-two-factor">
      <img
        class="settings-qr"
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qrCodeSvg)}`}
        alt={t('settings.twoFactor.qrAlt')}
        width={200}
        height={200}
      />
      <form class="settings-form" onSubmit={(event) => void submit(event)}>
        <ol class="settings-steps">
          <li>{t('settings.twoFactor.scan')}</li>
          <li>
            {t('settings.twoFactor.manual')} <code class="settings-secret">{secretOf(enrolment.otpauthUri)}</code>
          </li>
          <li>{t('settings.twoFactor.enterCode')}</li>
        </ol>
        <TextField
          label={t('settings.twoFactor.code')}
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          value={code}
          onValue={setCode}
          error={errorOf('code')}
        />
        {asksPassword && (
          <TextField
            label={t('settings.twoFactor.password')}
            hint={t('settings.twoFactor.passwordHint')}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onValue={setPassword}
            error={errorOf('password')}
          />
        )}
        <div class="form-actions">
          <button type="submit" class="button" disabled={confirm.busy || code.trim() === '' || (asksPassword && password === '')}>
            {t('settings.twoFactor.confirm')}
          </button>
        </div>
      </form>
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const done = () => {
    onDone();
    void invalidate('me');
  };
  return (
    <div class="settings-once" role="status">
      <p>
        <strong>{t('settings.twoFactor.recoveryTitle')}</strong> {t('settings.twoFactor.recoveryText')}
      </p>
      <ul class="settings-codes" aria-label={t('settings.twoFactor.recoveryTitle')}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div class="form-actions">
        <CopyButton text={codes.join('\n')} label={t('settings.twoFactor.copyCodes')} />
        <button type="button" class="button" onClick={done}>
          {t('settings.twoFactor.saved')}
        </button>
      </div>
    </div>
  );
}

function DisableTwoFactor() {
  const [code, setCode] = useState('');
  const disable = useMutation(() => succeeded(api.DELETE('/api/me/two-factor', { body: { code: code.trim() } })), ['me']);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await disable.run()) toast(t('settings.twoFactor.disabled'));
  };
  return (
    <form class="settings-form" onSubmit={(event) => void submit(event)}>
      <TextField
        label={t('settings.twoFactor.disableCode')}
        hint={t('settings.twoFactor.disableHint')}
        autoComplete="one-time-code"
        required
        value={code}
        onValue={setCode}
        error={disable.error?.message}
      />
      <div class="form-actions">
        <button type="submit" class="button danger" disabled={disable.busy || code.trim() === ''}>
          {t('settings.twoFactor.disable')}
        </button>
      </div>
    </form>
  );
}
