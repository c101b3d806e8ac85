import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { useQuery } from '../../api/query.js';
import { formatDateTime, formatNumber, t, type MessageKey } from '../../i18n/index.js';
import { EmptyState, QueryState } from '../../ui/feedback.js';
import { PageHeader, Section } from '../../ui/page.js';
import { ViewsChart } from '../link/analytics-parts.js';

type GlobalAnalytics = paths['/api/analytics/global']['get']['responses'][200]['content']['application/json'];

function Totals({ totals }: { totals: GlobalAnalytics['metrics'] }) {
  const shown: Array<[string, number]> = [
    [t('analytics.views'), totals.totalViews],
    [t('analytics.uniqueVisitors'), totals.uniqueVisitors],
    [t('analytics.activeLinks'), totals.activeLinks],
    [t('analytics.downloads'), totals.totalDownloads],
  ];
  return (
    <dl class="link-totals" aria-label={t('analytics.totals')}>
      {shown.map(([label, value]) => (
        <div key={label} class="card link-total">
          <dt class="muted">{label}</dt>
          <dd>{formatNumber(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function TopLinks({ links }: { links: GlobalAnalytics['topLinks'] }) {
  return (
    <Section title={t('analytics.topLinks')}>
      {links.length === 0 ? (
        <p class="muted">{t('analytics.topLinksEmpty')}</p>
      ) : (
        <ol class="analytics-list">
          {links.map((link) => (
            <li key={link.id}>
              <a href={`/app/documents/${encodeURIComponent(link.id)}/analytics`}>{link.name}</a>
              <span class="muted">{formatNumber(link.views)}</span>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}

type ActivityEvent = GlobalAnalytics['recentActivity'][number];

/** The sentence of an event; a reached limit says which one. */
const sentenceKey = (event: ActivityEvent) =>
  (event.type === 'link.limit_reached'
    ? `analytics.event.link.limit_reached.${event.limit ?? 'password'}`
    : `analytics.event.${event.type}`) as MessageKey;

function RecentActivity({ events }: { events: ActivityEvent[] }) {
  return (
    <Section title={t('analytics.recent')}>
      {events.length === 0 ? (
        <p class="muted">{t('analytics.recentEmpty')}</p>
      ) : (
        <ul class="analytics-list analytics-activity">
          {events.map((event, index) => (
            <li key={`${event.at}-${index}`}>
              <span>{t(sentenceKey(event), { visitor: event.visitor ?? t('analytics.someone'), link: event.linkName })}</span>
              <span class="muted">{formatDateTime(event.at)}</span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

/** The account's numbers, views over 30 days, its most viewed links and what happened last; refreshed every 10 s. */
export function AnalyticsScreen() {
  const analytics = useQuery('analytics:global', () => ok(api.GET('/api/analytics/global')), { refreshMs: 10_000 });
  return (
    <>
      <PageHeader title={t('analytics.title')} lead={t('analytics.lead')} />
      <QueryState query={analytics} rows={4}>
        {(data) => (
          <>
            <Totals totals={data.metrics} />
            {data.metrics.totalViews === 0 && <EmptyState title={t('analytics.emptyTitle')} text={t('analytics.emptyText')} />}
            {data.metrics.totalViews > 0 && <ViewsChart days={data.charts.viewsByDay} />}
            <div class="analytics-columns">
              <TopLinks links={data.topLinks} />
              <RecentActivity events={data.recentActivity} />
            </div>
          </>
        )}
      </QueryState>
    </>
  );
}
