import { t } from '../../i18n/index.js';
import { NotInDashboardYet } from '../not-yet.js';

export const PortalsScreen = () => <NotInDashboardYet title={t('nav.portals')} endpoints="/api/client-portals" />;
export const PortalScreen = PortalsScreen;
