import { useEffect, useRef } from 'preact/hooks';
import { t } from '../../i18n/index.js';

export interface PreviewLook {
  company_name: string;
  primary_color: string;
  bg_color: string;
  btn_text_color: string;
  btn_radius: string;
  card_bg_color: string;
  card_border_color: string;
  text_color: string;
}

const VARIABLES: Array<[keyof PreviewLook, string]> = [
  ['primary_color', '--preview-primary'],
  ['bg_color', '--preview-bg'],
  ['btn_text_color', '--preview-button-text'],
  ['btn_radius', '--preview-radius'],
  ['card_bg_color', '--preview-card'],
  ['card_border_color', '--preview-border'],
  ['text_color', '--preview-text'],
];

/**
 * A small mock of the visitor page in the colours being chosen, before they are saved. The colours
 * reach it as CSS variables set from script (the CSP refuses inline style attributes).
 */
export function VisitorPreview({ look, logoUrl }: { look: PreviewLook; logoUrl: string | null }) {
  const frame = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const style = frame.current?.style;
    if (!style) return;
    for (const [field, variable] of VARIABLES) style.setProperty(variable, look[field]);
  }, [look]);
  return (
    <figure class="settings-preview-figure">
      <figcaption class="muted">{t('settings.branding.previewCaption')}</figcaption>
      <div ref={frame} class="settings-preview" data-testid="visitor-preview">
        <div class="settings-preview-header">
          {logoUrl ? <img src={logoUrl} alt="" class="settings-preview-logo" /> : null}
          <span>{look.company_name || t('settings.branding.previewCompany')}</span>
        </div>
        <div class="settings-preview-card">
          <p class="settings-preview-title">{t('settings.branding.previewDocument')}</p>
          <p class="settings-preview-text">{t('settings.branding.previewText')}</p>
          <span class="settings-preview-field" aria-hidden="true">
            {t('settings.branding.previewEmail')}
          </span>
          <span class="settings-preview-button">{t('settings.branding.previewButton')}</span>
        </div>
      </div>
    </figure>
  );
}
