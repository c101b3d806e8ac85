export { PortalScreen } from './portal-screen.js';
export { PortalsScreen } from './portals-screen.js';
