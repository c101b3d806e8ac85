import { lazy, Route, Router } from 'preact-iso';
import { t } from './i18n/index.js';
import { EmptyState } from './ui/feedback.js';
import { PageHeader } from './ui/page.js';

// One chunk per screen group, loaded when first opened: the first load carries only the frame and the documents list.
const documents = () => import('./screens/documents/index.js');
const link = () => import('./screens/link/index.js');
const requests = () => import('./screens/requests/index.js');
const rooms = () => import('./screens/rooms/index.js');
const portals = () => import('./screens/portals/index.js');
const templates = () => import('./screens/templates/index.js');
const analytics = () => import('./screens/analytics/index.js');
const settings = () => import('./screens/settings/index.js');

const DocumentsScreen = lazy(() => documents().then((m) => m.DocumentsScreen));
const UploadScreen = lazy(() => documents().then((m) => m.UploadScreen));
const LinkSettingsScreen = lazy(() => link().then((m) => m.LinkSettingsScreen));
const LinkAnalyticsScreen = lazy(() => link().then((m) => m.LinkAnalyticsScreen));
const RequestsScreen = lazy(() => requests().then((m) => m.RequestsScreen));
const RoomsScreen = lazy(() => rooms().then((m) => m.RoomsScreen));
const RoomScreen = lazy(() => rooms().then((m) => m.RoomScreen));
const PortalsScreen = lazy(() => portals().then((m) => m.PortalsScreen));
const PortalScreen = lazy(() => portals().then((m) => m.PortalScreen));
const TemplatesScreen = lazy(() => templates().then((m) => m.TemplatesScreen));
const TemplateScreen = lazy(() => templates().then((m) => m.TemplateScreen));
const AnalyticsScreen = lazy(() => analytics().then((m) => m.AnalyticsScreen));
const SettingsScreen = lazy(() => settings().then((m) => m.SettingsScreen));

function NotFound() {
  return (
    <>
      <PageHeader title={t('state.notFound')} />
      <EmptyState title={t('state.notFound')} text="" action={<a href="/app/documents">{t('state.notFoundAction')}</a>} />
    </>
  );
}

/** Every screen's address under /app (the server answers the same page for all of them). */
export function Routes() {
  return (
    <Router>
      <Route path="/app" component={DocumentsScreen} />
      <Route path="/app/documents" component={DocumentsScreen} />
      <Route path="/app/documents/upload" component={UploadScreen} />
      <Route path="/app/documents/:id/settings" component={LinkSettingsScreen} />
      <Route path="/app/documents/:id/analytics" component={LinkAnalyticsScreen} />
      <Route path="/app/requests" component={RequestsScreen} />
      <Route path="/app/rooms" component={RoomsScreen} />
      <Route path="/app/rooms/:id" component={RoomScreen} />
      <Route path="/app/portals" component={PortalsScreen} />
      <Route path="/app/portals/:id" component={PortalScreen} />
      <Route path="/app/templates" component={TemplatesScreen} />
      <Route path="/app/templates/:id" component={TemplateScreen} />
      <Route path="/app/analytics" component={AnalyticsScreen} />
      <Route path="/app/settings" component={SettingsScreen} />
      <Route path="/app/settings/:section" component={SettingsScreen} />
      <Route default component={NotFound} />
    </Router>
  );
}
