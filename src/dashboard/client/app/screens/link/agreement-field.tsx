import { api, ok } from '../../api/client.js';
import { useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { SelectField } from '../../ui/forms.js';

const fetchAgreements = async () => (await ok(api.GET('/api/agreements'))).agreements;

/** The agreement a visitor accepts before viewing, from the account's agreements ('' for none). */
export function AgreementField({ value, onValue, error }: { value: string; onValue: (value: string) => void; error?: string | undefined }) {
  const agreements = useQuery('agreements', fetchAgreements);
  const options = [
    { value: '', label: t('link.agreement.none') },
    ...(agreements.data ?? []).map((agreement) => ({ value: String(agreement.id), label: agreement.name })),
  ];
  // Until the list arrives, the chosen one is shown by number rather than dropped.
  if (value !== '' && !options.some((option) => option.value === value)) options.push({ value, label: `#${value}` });
  return (
    <SelectField label={t('link.agreement.label')} hint={t('link.agreement.hint')} error={error} value={value} options={options} onValue={onValue} />
  );
}

export const agreementIdOf = (value: string) => (value === '' ? null : Number(value));
export const agreementValueOf = (id: number | null | undefined) => (id === null || id === undefined ? '' : String(id));
