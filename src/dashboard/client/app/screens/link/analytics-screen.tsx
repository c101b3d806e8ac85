import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, ok } from '../../api/client.js';
import { useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { QueryState } from '../../ui/feedback.js';
import { PageHeader } from '../../ui/page.js';
import { AgreementAcceptances } from './acceptances.js';
import { PageTimes, Totals, ViewsChart, Visitors, VISITORS_STEP } from './analytics-parts.js';
import { linkKey, useLink, type LinkAnalytics } from './link-data.js';
import { LinkSummary } from './link-summary.js';

/** The most visitors the API lists (its `visitors` parameter's maximum). */
const MAX_LISTED_VISITORS = 5000;

/** How a link has been viewed, refreshed every few seconds so new views appear as they happen. */
export function LinkAnalyticsScreen() {
  const id = useRoute().params.id!;
  const link = useLink(id);
  // The latest visitors only: a link read by thousands is refreshed every 5 s.
  const [more, setMore] = useState({ id, listed: VISITORS_STEP });
  const listed = more.id === id ? more.listed : VISITORS_STEP;
  const analytics = useQuery(
    `${linkKey(id)}:analytics:${listed}`,
    // The JSON answer: the CSV one is only fetched by the export link.
    () =>
      ok(api.GET('/api/links/{id}/analytics', { params: { path: { id }, query: { format: 'json', visitors: listed } } })) as Promise<LinkAnalytics>,
    { refreshMs: 5000, keepWithin: linkKey(id) },
  );
  const csvUrl = `/api/links/${encodeURIComponent(id)}/analytics?format=csv`;
  return (
    <>
      <PageHeader title={t('link.analytics.title', { name: link.data?.name ?? analytics.data?.link.name ?? '' })} lead={t('link.analytics.lead')} />
      {link.data && <LinkSummary link={link.data} current="analytics" />}
      <QueryState query={analytics} rows={8}>
        {(data) => (
          <div class="link-analytics">
            <Totals analytics={data} />
            <ViewsChart days={data.viewsByDay} />
            <PageTimes pages={data.pages} link={link.data} />
            <Visitors
              visitors={data.visitors}
              total={data.uniqueVisitors}
              csvUrl={csvUrl}
              onMore={listed < MAX_LISTED_VISITORS ? () => setMore({ id, listed: Math.min(MAX_LISTED_VISITORS, listed + VISITORS_STEP) }) : undefined}
            />
            {link.data && link.data.settings.agreementId !== null && <AgreementAcceptances linkId={id} />}
          </div>
        )}
      </QueryState>
    </>
  );
}
