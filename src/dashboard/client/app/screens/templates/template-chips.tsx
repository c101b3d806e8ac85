import { t } from '../../i18n/index.js';
import { Chip } from '../../ui/page.js';
import type { Template } from './template-data.js';

const EXPIRY_LABEL = { '1h': 'templates.chip.expires1h', '24h': 'templates.chip.expires24h', '7d': 'templates.chip.expires7d' } as const;

/** What a template states, a chip per setting a visitor meets; settings it leaves out come from the upload. */
export function TemplateChips({ template }: { template: Template }) {
  const chips: string[] = [];
  if (template.expiresAt === null) chips.push(t('templates.chip.neverExpires'));
  else if (template.expiration) chips.push(t(EXPIRY_LABEL[template.expiration]));
  if (template.hasWatermark) chips.push(t('templates.chip.watermark'));
  if (template.requiresOtp) chips.push(t('templates.chip.emailCode'));
  if (template.requiresApproval) chips.push(t('templates.chip.approval'));
  if (template.requireEmail) chips.push(t('templates.chip.email'));
  if (template.agreementId) chips.push(t('templates.chip.agreement'));
  if (template.allowDownload) chips.push(t('templates.chip.download'));
  if (template.previewPages) chips.push(t('templates.chip.preview', { count: template.previewPages }));
  if (template.maxViews) chips.push(t('templates.chip.maxViews', { count: template.maxViews }));
  if (chips.length === 0) return <span class="muted">{t('templates.chip.none')}</span>;
  return (
    <span class="templates-chips">
      {chips.map((label) => (
        <Chip key={label}>{label}</Chip>
      ))}
    </span>
  );
}
