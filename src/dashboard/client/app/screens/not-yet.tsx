import { t } from '../i18n/index.js';
import { EmptyState } from '../ui/feedback.js';
import { PageHeader } from '../ui/page.js';

/** A screen the dashboard does not have yet: it says so and where the same work is done today (the API reference). */
export function NotInDashboardYet({ title, endpoints }: { title: string; endpoints: string }) {
  return (
    <>
      <PageHeader title={title} />
      <EmptyState
        title={t('notYet.title', { screen: title })}
        text={t('notYet.text', { endpoints })}
        action={
          <a class="button secondary" href="/docs">
            {t('notYet.action')}
          </a>
        }
      />
    </>
  );
}
