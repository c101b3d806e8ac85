import { t } from '../../i18n/index.js';
import { NotInDashboardYet } from '../not-yet.js';

export const RoomsScreen = () => <NotInDashboardYet title={t('nav.rooms')} endpoints="POST /api/links/room" />;
export const RoomScreen = RoomsScreen;
