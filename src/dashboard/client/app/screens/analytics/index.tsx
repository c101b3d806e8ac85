export { AnalyticsScreen } from './analytics-screen.js';
