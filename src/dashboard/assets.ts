import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { servePageAssets } from '../viewer/assets.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The owner pages' browser script, and where `npm run build` writes its bundle: beside this file's compiled copy. */
export const OWNER_PAGES_SCRIPT = { source: path.join(here, 'client', 'owner-pages.ts'), prebuilt: path.join(here, 'assets', 'owner-pages.js') };

/** /assets/owner-pages.css and /assets/owner-pages.js (the pages load the viewer's stylesheet first). */
export const registerOwnerPagesAssets = (app: FastifyInstance): Promise<void> =>
  servePageAssets(app, { stylesheet: path.join(here, 'assets', 'owner-pages.css'), script: OWNER_PAGES_SCRIPT });
