import { after } from 'node:test';
import { closeBrowser } from '../helpers/browser.js';
import { VIEWPORTS } from '../helpers/dashboard.js';
import { journeysAt } from './dashboard-journeys.js';

after(closeBrowser);
journeysAt(VIEWPORTS[0]);
