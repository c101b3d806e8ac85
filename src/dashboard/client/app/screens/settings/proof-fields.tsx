import { t } from '../../i18n/index.js';
import { TextField } from '../../ui/forms.js';

/** What the API asks of a person before a change of consequence: their password when they have one, the code when two-factor is on. */
export interface Prover {
  hasPassword: boolean;
  twoFactor: boolean;
}

export interface Proof {
  currentPassword: string;
  code: string;
}

export const NO_PROOF: Proof = { currentPassword: '', code: '' };

/** The proof's part of a request body: only what this person is asked. */
export const proofBody = (prover: Prover, proof: Proof) => ({
  ...(prover.hasPassword && { currentPassword: proof.currentPassword }),
  ...(prover.twoFactor && { code: proof.code }),
});

export const proofGiven = (prover: Prover, proof: Proof) =>
  (!prover.hasPassword || proof.currentPassword !== '') && (!prover.twoFactor || proof.code !== '');

/**
 * Where the API's 422 about the proof shows: beside the one field asked, or, with both asked
 * (the answer does not say which was wrong), for the form to show.
 */
export function proofErrors(prover: Prover, message: string | undefined) {
  return {
    password: prover.hasPassword && !prover.twoFactor ? message : undefined,
    code: prover.twoFactor && !prover.hasPassword ? message : undefined,
    form: prover.hasPassword && prover.twoFactor ? message : undefined,
  };
}

export function ProofFields({
  prover,
  proof,
  onProof,
  error,
}: {
  prover: Prover;
  proof: Proof;
  onProof: (proof: Proof) => void;
  /** The 422 about the proof, if any, beside its field. */
  error?: string | undefined;
}) {
  const errors = proofErrors(prover, error);
  return (
    <>
      {prover.hasPassword && (
        <TextField
          label={t('settings.proof.password')}
          type="password"
          autoComplete="current-password"
          required
          value={proof.currentPassword}
          onValue={(currentPassword) => onProof({ ...proof, currentPassword })}
          error={errors.password}
        />
      )}
      {prover.twoFactor && (
        <TextField
          label={t('settings.proof.code')}
          hint={t('settings.proof.codeHint')}
          autoComplete="one-time-code"
          required
          maxLength={40}
          value={proof.code}
          onValue={(code) => onProof({ ...proof, code })}
          error={errors.code}
        />
      )}
    </>
  );
}
