import { analytics } from './analytics.js';
import { common } from './common.js';
import { documents } from './documents.js';
import { link } from './link.js';
import { requests } from './requests.js';
import { rooms } from './rooms.js';
import { settings } from './settings.js';

/** The dashboard's one message catalogue (English), kept in a file per screen group. */
export const en = { ...common, ...documents, ...link, ...requests, ...rooms, ...analytics, ...settings };
