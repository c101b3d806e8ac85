import { formatDateTime, formatDay, formatDuration, formatNumber, t, tn } from '../../i18n/index.js';
import { deviceOf } from '../../ui/device.js';
import { EmptyState } from '../../ui/feedback.js';
import { Section } from '../../ui/page.js';
import { thumbnailUrl, type LinkAnalytics, type LinkDetail } from './link-data.js';
import { useNarrowScreen } from '../../ui/narrow-screen.js';

const CHART_HEIGHT = 120;
/** Visitors listed at first, and added by each "Show more". */
export const VISITORS_STEP = 50;

/** Views per day as bars, with the same numbers in a table for screen readers. */
export function ViewsChart({ days }: { days: LinkAnalytics['viewsByDay'] }) {
  const most = Math.max(1, ...days.map((day) => day.views));
  const width = 100 / days.length;
  return (
    <Section title={t('link.analytics.overTime')} description={t('link.analytics.overTimeHint')}>
      <svg class="link-chart" viewBox={`0 0 100 ${CHART_HEIGHT}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        {days.map((day, index) => {
          const height = (day.views / most) * (CHART_HEIGHT - 4);
          return <rect key={day.date} x={index * width + width * 0.15} y={CHART_HEIGHT - height} width={width * 0.7} height={height} rx={0.6} />;
        })}
      </svg>
      <div class="link-chart-axis muted" aria-hidden="true">
        <span>{formatDay(days[0]?.date)}</span>
        <span>{formatDay(days.at(-1)?.date)}</span>
      </div>
      <table class="visually-hidden">
        <caption>{t('link.analytics.overTime')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('link.analytics.day')}</th>
            <th scope="col">{t('link.analytics.views')}</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <td>{formatDay(day.date)}</td>
              <td>{formatNumber(day.views)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/** The headline numbers. */
export function Totals({ analytics }: { analytics: LinkAnalytics }) {
  const totals: Array<[string, string]> = [
    [t('link.analytics.views'), formatNumber(analytics.views)],
    [t('link.analytics.uniqueVisitors'), formatNumber(analytics.uniqueVisitors)],
    [t('link.analytics.averageTime'), formatDuration(analytics.averageSeconds)],
    [t('link.analytics.blocked'), formatNumber(analytics.blockedAttempts)],
  ];
  return (
    <dl class="link-totals" aria-live="polite">
      {totals.map(([label, value]) => (
        <div key={label} class="card link-total">
          <dt class="muted">{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

type Visitor = LinkAnalytics['visitors'][number];

/** "Safari · iOS": the browser of the visitor's latest view. */
const deviceOfVisitor = (visitor: Visitor) => (visitor.userAgent ? deviceOf(visitor.userAgent) : t('link.analytics.unknownDevice'));

// Rows are keyed by their place: visitors known by address are shown masked (203.0.113.x), so
// two of one network share a label.
function VisitorTable({ visitors }: { visitors: Visitor[] }) {
  return (
    <div class="table-wrap">
      <table class="table">
        <thead>
          <tr>
            <th scope="col">{t('link.analytics.visitor')}</th>
            <th scope="col" class="numeric">
              {t('link.analytics.views')}
            </th>
            <th scope="col" class="numeric">
              {t('link.analytics.time')}
            </th>
            <th scope="col" class="numeric">
              {t('link.analytics.pagesSeen')}
            </th>
            <th scope="col">{t('link.analytics.device')}</th>
            <th scope="col">{t('link.analytics.firstView')}</th>
            <th scope="col">{t('link.analytics.lastView')}</th>
          </tr>
        </thead>
        <tbody>
          {visitors.map((visitor, index) => (
            <tr key={index}>
              <td class="link-visitor">{visitor.visitor}</td>
              <td class="numeric">{formatNumber(visitor.views)}</td>
              <td class="numeric">{formatDuration(visitor.seconds)}</td>
              <td class="numeric">{formatNumber(visitor.pagesSeen)}</td>
              <td>{deviceOfVisitor(visitor)}</td>
              <td class="muted">{formatDateTime(visitor.firstViewAt)}</td>
              <td class="muted">{formatDateTime(visitor.lastViewAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function VisitorCards({ visitors }: { visitors: Visitor[] }) {
  return (
    <ul class="link-visitor-cards">
      {visitors.map((visitor, index) => (
        <li key={index} class="link-visitor-card">
          <p class="link-visitor">{visitor.visitor}</p>
          <p class="muted">
            {t('link.analytics.visitorLine', {
              views: tn('link.views', visitor.views),
              time: formatDuration(visitor.seconds),
              pages: tn('link.analytics.pagesSeenCount', visitor.pagesSeen),
              last: formatDateTime(visitor.lastViewAt),
            })}
          </p>
          <p class="muted">{deviceOfVisitor(visitor)}</p>
        </li>
      ))}
    </ul>
  );
}

/** Who opened the link, latest first: a table on a wide screen, cards on a phone; more on demand. */
export function Visitors({
  visitors,
  total,
  csvUrl,
  onMore,
}: {
  visitors: Visitor[];
  /** every visitor the link has had */
  total: number;
  csvUrl: string;
  /** lists more of them; absent when no more can be listed */
  onMore?: () => void;
}) {
  const narrow = useNarrowScreen();
  return (
    <Section
      title={t('link.analytics.visitors')}
      actions={
        <a class="button secondary small" href={csvUrl} download>
          {t('link.analytics.exportCsv')}
        </a>
      }
    >
      {visitors.length === 0 ? (
        <EmptyState title={t('link.analytics.noVisitorsTitle')} text={t('link.analytics.noVisitorsText')} />
      ) : narrow ? (
        <VisitorCards visitors={visitors} />
      ) : (
        <VisitorTable visitors={visitors} />
      )}
      {visitors.length > 0 && visitors.length < total && (
        <div class="link-visitors-more">
          <p class="muted">{t('link.analytics.visitorsListed', { listed: formatNumber(visitors.length), total: formatNumber(total) })}</p>
          {onMore && (
            <button type="button" class="button secondary small" onClick={onMore}>
              {t('link.analytics.moreVisitors', { count: VISITORS_STEP })}
            </button>
          )}
        </div>
      )}
    </Section>
  );
}

/** Seconds on each page as horizontal bars, each with the page's thumbnail when the pages are ready. */
export function PageTimes({ pages, link }: { pages: LinkAnalytics['pages']; link: LinkDetail | undefined }) {
  if (pages.length === 0) return null;
  const most = Math.max(1, ...pages.map((page) => page.seconds));
  const withThumbnails = link?.document.status === 'ready' && link.document.pages !== null;
  return (
    <Section title={t('link.analytics.pageTimes')}>
      <ol class="link-pages">
        {pages.map((page) => (
          <li key={page.page} class="link-page">
            {withThumbnails && <img class="link-page-thumbnail" src={thumbnailUrl(link.id, page.page)} alt="" loading="lazy" />}
            <span class="link-page-label">{t('link.analytics.page', { page: page.page })}</span>
            <span class="link-page-bar" aria-hidden="true">
              <span style={{ width: `${(page.seconds / most) * 100}%` }} />
            </span>
            <span class="link-page-time">{formatDuration(page.seconds)}</span>
          </li>
        ))}
      </ol>
    </Section>
  );
}
