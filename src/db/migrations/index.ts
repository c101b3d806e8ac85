import type { Migration, MigrationProvider } from 'kysely/migration';
import * as foundation from './0001-foundation.js';
import * as links from './0002-links.js';
import * as visitors from './0003-visitors.js';

/** Every migration, in order. Listed statically so they run the same from tsx, tests and a bundle. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-links': links,
  '0003-visitors': visitors,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
