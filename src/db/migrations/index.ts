import type { Migration, MigrationProvider } from 'kysely/migration';
import * as foundation from './0001-foundation.js';

/** Every migration, in order. Listed statically so they run the same from tsx, tests and a bundle. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
