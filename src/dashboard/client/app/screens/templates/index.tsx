import { t } from '../../i18n/index.js';
import { NotInDashboardYet } from '../not-yet.js';

export const TemplatesScreen = () => <NotInDashboardYet title={t('nav.templates')} endpoints="/api/templates" />;
export const TemplateScreen = TemplatesScreen;
