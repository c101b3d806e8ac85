import { formatDate, t } from '../../i18n/index.js';
import { Chip } from '../../ui/page.js';
import type { LinkItem } from './link-list.js';

/** What a visitor must get past to see the link, one chip per gate. */
export function GateChips({ link }: { link: LinkItem }) {
  const expired = new Date(link.expires_at).getTime() <= Date.now();
  return (
    <span class="documents-chips">
      {link.requires_password && <Chip>{t('documents.gate.password')}</Chip>}
      {link.requires_otp && <Chip>{t('documents.gate.emailCode')}</Chip>}
      {link.requires_approval && <Chip>{t('documents.gate.approval')}</Chip>}
      {link.has_watermark && <Chip>{t('documents.gate.watermark')}</Chip>}
      {link.has_expiry && (
        <Chip tone={expired ? 'danger' : 'neutral'}>
          {t(expired ? 'documents.gate.expired' : 'documents.gate.expires', { date: formatDate(link.expires_at) })}
        </Chip>
      )}
      {!link.is_active && <Chip tone="warning">{t('documents.gate.off')}</Chip>}
    </span>
  );
}
