import { useRoute } from 'preact-iso';
import { t } from '../../i18n/index.js';
import { QueryState } from '../../ui/feedback.js';
import { PageHeader, Section } from '../../ui/page.js';
import { hasExpired, useLink } from './link-data.js';
import { LinkSummary } from './link-summary.js';
import { PreviewImageField } from './preview-image.js';
import { ShareSection } from './share-section.js';
import { AccessSection, DocumentSection, NameSection, PasswordSection, PresentationSection, VisitorsSection } from './settings-sections.js';

/** Everything a link's owner can set on it, a section at a time. */
export function LinkSettingsScreen() {
  const id = useRoute().params.id!;
  const link = useLink(id);
  return (
    <>
      <PageHeader title={link.data?.name ?? t('link.settings.title')} lead={t('link.settings.lead')} />
      <QueryState query={link} rows={8}>
        {(data) => (
          <div class="link-settings">
            <LinkSummary link={data} current="settings" />
            {hasExpired(data) && (
              <p class="notice-warning link-expired-notice" role="status">
                {t('link.settings.expiredNotice')}
              </p>
            )}
            <NameSection link={data} />
            <AccessSection link={data} />
            <PasswordSection link={data} />
            <VisitorsSection link={data} />
            <DocumentSection link={data} />
            <PresentationSection link={data} />
            <Section title={t('link.previewImage.title')} description={t('link.previewImage.description')}>
              <PreviewImageField link={data} />
            </Section>
            <ShareSection link={data} />
          </div>
        )}
      </QueryState>
    </>
  );
}
