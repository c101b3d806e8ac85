export { RequestsScreen } from './requests-screen.js';
