import { t } from '../../i18n/index.js';
import { NotInDashboardYet } from '../not-yet.js';

// Each link's own analytics are in the dashboard (Documents → Analytics); the account-wide screen is not yet.
export const AnalyticsScreen = () => <NotInDashboardYet title={t('nav.analytics')} endpoints="GET /api/analytics/global" />;
