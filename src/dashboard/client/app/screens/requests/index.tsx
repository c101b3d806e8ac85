import { t } from '../../i18n/index.js';
import { PageHeader } from '../../ui/page.js';

// Placeholder until this screen group is built.
export function RequestsScreen() {
  return <PageHeader title={t('nav.requests')} />;
}
