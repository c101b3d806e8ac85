export { LinkSettingsScreen } from './settings-screen.js';
export { LinkAnalyticsScreen } from './analytics-screen.js';
