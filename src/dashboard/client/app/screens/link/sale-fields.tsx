import { t } from '../../i18n/index.js';
import { TextField, Toggle } from '../../ui/forms.js';

/** A sale of the download as a form holds it: the price in the currency's major unit, as typed. */
export interface SaleDraft {
  requirePaymentToDownload: boolean;
  downloadPrice: string;
  downloadCurrency: string;
}

/**
 * "Sell the download", and its price and currency once on: the link settings' and a template's
 * (`pairClass` lays the two fields out as the surrounding form does).
 */
export function SaleFields({
  draft,
  onChange,
  errorFor,
  pairClass,
}: {
  draft: SaleDraft;
  onChange: (change: Partial<SaleDraft>) => void;
  errorFor: (field: 'requirePaymentToDownload' | 'downloadPrice' | 'downloadCurrency') => string | undefined;
  pairClass: string;
}) {
  return (
    <>
      <Toggle
        label={t('link.document.sell')}
        hint={t('link.document.sellHint')}
        checked={draft.requirePaymentToDownload}
        onChange={(requirePaymentToDownload) => onChange({ requirePaymentToDownload })}
      />
      {errorFor('requirePaymentToDownload') && <p class="field-error">{errorFor('requirePaymentToDownload')}</p>}
      {draft.requirePaymentToDownload && (
        <div class={pairClass}>
          <TextField
            type="number"
            inputMode="numeric"
            min={0.5}
            label={t('link.document.price')}
            error={errorFor('downloadPrice')}
            value={draft.downloadPrice}
            onValue={(downloadPrice) => onChange({ downloadPrice })}
          />
          <TextField
            label={t('link.document.currency')}
            hint={t('link.document.currencyHint')}
            error={errorFor('downloadCurrency')}
            value={draft.downloadCurrency}
            maxLength={3}
            onValue={(downloadCurrency) => onChange({ downloadCurrency })}
          />
        </div>
      )}
    </>
  );
}

/** The sale as the API takes it: the price in the currency's smallest unit, the currency lower-cased; nothing more when not sold. */
export function saleChange(draft: SaleDraft) {
  const price = draft.downloadPrice.trim();
  return {
    requirePaymentToDownload: draft.requirePaymentToDownload,
    ...(draft.requirePaymentToDownload && {
      downloadPrice: price === '' ? null : Math.round(Number(price) * 100),
      downloadCurrency: draft.downloadCurrency.trim().toLowerCase(),
    }),
  };
}
