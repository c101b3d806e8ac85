import { t, type MessageKey } from '../../i18n/index.js';
import { contrastRatio, readableOn } from '../../layout/brand.js';
import type { PreviewLook } from './visitor-preview.js';

/** WCAG AA for normal text. */
const READABLE = 4.5;

/** Colours of the look that are read one on the other: the text first, then what it stands on. */
const PAIRS: Array<{ text: keyof PreviewLook; on: keyof PreviewLook; message: MessageKey }> = [
  { text: 'btn_text_color', on: 'primary_color', message: 'settings.branding.contrast.button' },
  { text: 'text_color', on: 'card_bg_color', message: 'settings.branding.contrast.text' },
  { text: 'text_color', on: 'bg_color', message: 'settings.branding.contrast.page' },
];

/**
 * Says, while colours are chosen, which text would be hard to read and how far off it is, with the
 * one change that mends it (black or white text). Links and focus rings need nothing: the
 * visitor pages wear a readable shade of the brand colour for them.
 */
export function ContrastNotice({ look, onFix }: { look: PreviewLook; onFix: (field: keyof PreviewLook, colour: string) => void }) {
  const faint = PAIRS.flatMap((pair) => {
    const ratio = contrastRatio(look[pair.text], look[pair.on]);
    return ratio !== undefined && ratio < READABLE ? [{ ...pair, ratio }] : [];
  });
  return (
    <div class="settings-contrast" role="status">
      {faint.map(({ text, on, message, ratio }) => {
        const fix = readableOn(look[on]);
        return (
          <p key={message} class="notice-warning settings-contrast-notice">
            {/* Rounded down: 4.48 is not yet 4.5. */}
            {t(message, { ratio: (Math.floor(ratio * 10) / 10).toFixed(1) })}{' '}
            <button type="button" class="button secondary small" onClick={() => onFix(text, fix)}>
              {t('settings.branding.contrast.fix', { colour: fix })}
            </button>
          </p>
        );
      })}
    </div>
  );
}
