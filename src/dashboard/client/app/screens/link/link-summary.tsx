import { formatDate, formatNumber, t, tn } from '../../i18n/index.js';
import { CopyButton } from '../../ui/copy-button.js';
import { Chip } from '../../ui/page.js';
import { hasExpired, thumbnailUrl, type LinkDetail } from './link-data.js';

/** What a visitor meets on the link, one chip per state or gate. */
export function LinkChips({ link }: { link: LinkDetail }) {
  const s = link.settings;
  const expired = hasExpired(link);
  return (
    <span class="link-chips">
      {s.isActive ? <Chip tone="success">{t('link.chip.on')}</Chip> : <Chip tone="warning">{t('link.chip.off')}</Chip>}
      {s.expiresAt !== null && (
        <Chip tone={expired ? 'danger' : 'neutral'}>{t(expired ? 'link.chip.expired' : 'link.chip.expires', { date: formatDate(s.expiresAt) })}</Chip>
      )}
      {s.hasPassword && <Chip>{t('link.chip.password')}</Chip>}
      {s.requiresOtp && <Chip>{t('link.chip.emailCode')}</Chip>}
      {s.requiresApproval && <Chip>{t('link.chip.approval')}</Chip>}
      {s.hasWatermark && <Chip>{t('link.chip.watermark')}</Chip>}
    </span>
  );
}

/** Whether the document's pages are ready to show, still being made, or failed and why. */
function DocumentStatus({ link }: { link: LinkDetail }) {
  const { status, pages, rendered, error } = link.document;
  if (status === 'none') return null;
  return (
    <div class="link-document">
      {status === 'ready' && <img class="link-thumbnail" src={thumbnailUrl(link.id, 1)} alt={t('link.document.thumbnail', { name: link.name })} />}
      <div>
        <p class="link-document-status">
          {status === 'ready' && <Chip tone="success">{t('link.document.ready')}</Chip>}
          {status === 'processing' && <Chip tone="brand">{t('link.document.processing')}</Chip>}
          {status === 'failed' && <Chip tone="danger">{t('link.document.failed')}</Chip>}
          {status !== 'processing' && pages !== null && <span class="muted">{tn('link.document.pages', pages)}</span>}
        </p>
        {status === 'processing' && pages !== null && rendered !== null && (
          <p class="link-document-progress">
            <progress max={pages} value={rendered} aria-label={t('link.document.progressLabel', { name: link.name })} />
            <span class="muted">{t('link.document.progress', { rendered: formatNumber(rendered), pages: formatNumber(pages) })}</span>
          </p>
        )}
        {status === 'failed' && error && <p class="muted">{error}</p>}
      </div>
    </div>
  );
}

/** The top of a link's screens (and a data room's): its chips, its address to copy, where its numbers and settings are, its document. */
export function LinkSummary({ link, current }: { link: LinkDetail; current: 'settings' | 'analytics' | 'room' }) {
  const base = `/app/documents/${encodeURIComponent(link.id)}`;
  return (
    <div class="card link-summary">
      <div class="link-summary-main">
        <LinkChips link={link} />
        {current !== 'analytics' && <p class="muted">{tn('link.views', link.views)}</p>}
        <div class="link-summary-actions">
          <CopyButton text={link.viewer_url} />
          {current !== 'analytics' && (
            <a class="button secondary small" href={`${base}/analytics`}>
              {t('link.toAnalytics')}
            </a>
          )}
          {current !== 'settings' && (
            <a class="button secondary small" href={`${base}/settings`}>
              {t('link.toSettings')}
            </a>
          )}
        </div>
      </div>
      <DocumentStatus link={link} />
    </div>
  );
}
