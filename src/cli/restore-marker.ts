import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { makeOwnerOnlyFolder, OWNER_ONLY_FILE, OWNER_ONLY_FOLDER } from '../db/owner-only.js';
import type { Config } from '../config.js';
import { CommandError } from './command-error.js';

/** In DATA_DIR from before a restore writes anything until it has restored everything. */
export const RESTORE_MARKER_FILE = 'RESTORE-IN-PROGRESS';

export interface RestoreMarker {
  /** The backup folder being restored, for the command that finishes the restore. */
  from: string;
  startedAt: string;
  /** A master.key the operator put in DATA_DIR before the restore: a rerun keeps it, where it removes one the restore wrote. */
  keyFileWasThere: boolean;
  /**
   * The database and storage it wrote to (`restoreTargets`), which a rerun empties before restoring
   * again: only these, never what DATABASE_URL and STORAGE_URL name by then. Absent in a marker cut short.
   */
  targets?: RestoreTargets;
}

/** A database and a blob storage, named without credentials. */
export interface RestoreTargets {
  database: string;
  storage: string;
}

export function restoreTargets(config: Pick<Config, 'database' | 'storage'>): RestoreTargets {
  const { database, storage } = config;
  let databaseName: string;
  if (database.kind === 'sqlite') databaseName = `sqlite:${path.resolve(database.file)}`;
  else {
    const url = new URL(database.url);
    url.username = '';
    url.password = '';
    databaseName = url.href;
  }
  const storageName =
    storage.kind === 'local' ? `file://${path.resolve(storage.dir)}` : `s3://${storage.bucket}${storage.endpoint ? ` at ${storage.endpoint}` : ''}`;
  return { database: databaseName, storage: storageName };
}

const markerFile = (dataDir: string) => path.join(dataDir, RESTORE_MARKER_FILE);

export async function writeRestoreMarker(dataDir: string, marker: RestoreMarker): Promise<void> {
  await makeOwnerOnlyFolder(dataDir);
  await fsp.chmod(dataDir, OWNER_ONLY_FOLDER);
  // Whole or not at all: a marker cut short would name no targets, and no rerun could then undo the restore.
  const partial = `${markerFile(dataDir)}.partial`;
  await fsp.writeFile(partial, JSON.stringify(marker) + '\n', { mode: OWNER_ONLY_FILE, flush: true });
  await fsp.rename(partial, markerFile(dataDir));
}

export const removeRestoreMarker = (dataDir: string) => fsp.rm(markerFile(dataDir), { force: true });

/** The marker of an interrupted restore, or undefined when none is under way. */
export function readRestoreMarker(dataDir: string): RestoreMarker | undefined {
  let text: string;
  try {
    text = fs.readFileSync(markerFile(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as RestoreMarker;
  } catch {
    // Cut short while it was written: nothing tells whose master.key is there, so it is kept.
    return { from: 'DIR', startedAt: 'unknown', keyFileWasThere: true };
  }
}

/** Every command but restore: a half-restored DATA_DIR would otherwise start as a fresh install, with a new master key. */
export function assertNoInterruptedRestore(dataDir: string): void {
  const marker = readRestoreMarker(dataDir);
  if (!marker) return;
  throw new CommandError(
    `a restore into ${dataDir} was interrupted and left it half restored (${RESTORE_MARKER_FILE} is there): run \`linkvault restore --from ${marker.from}\` again to finish it`,
  );
}
