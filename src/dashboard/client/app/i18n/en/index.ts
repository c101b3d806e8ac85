import { analytics } from './analytics.js';
import { collections } from './collections.js';
import { common } from './common.js';
import { documents } from './documents.js';
import { link } from './link.js';
import { portals } from './portals.js';
import { requests } from './requests.js';
import { rooms } from './rooms.js';
import { settings } from './settings.js';
import { templates } from './templates.js';

/** The dashboard's one message catalogue (English), kept in a file per screen group. */
export const en = { ...common, ...documents, ...link, ...requests, ...collections, ...rooms, ...portals, ...templates, ...analytics, ...settings };
