import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { listTables } from '../db/inventory.js';
import { migrationNames } from '../db/migrations/index.js';
import { integrityProblem, schemaDifference } from '../db/schema-check.js';
import { openDatabase, sqliteFiles } from '../db/kysely.js';
import { makeOwnerOnlyFolder, OWNER_ONLY_FILE } from '../db/owner-only.js';
import { findMasterKey, MASTER_KEY_FILE, masterKeyFingerprint } from '../infra/crypto/master-key.js';
import { createBlobStore } from '../infra/storage/index.js';
import { assertFilesIntact, assertSignedManifest, BLOBS_DIR, DATABASE_FILE, KEY_FILE, readManifest, type Manifest } from './backup-manifest.js';
import { CommandError } from './command-error.js';
import { entriesOf } from './folders.js';
import { say, shout } from './output.js';
import { checkPostgresDump, holdsRestoredDump, loadPostgresDump } from './restore-postgres.js';
import {
  readRestoreMarker,
  removeRestoreMarker,
  RESTORE_MARKER_FILE,
  restoreTargets,
  writeRestoreMarker,
  type RestoreMarker,
} from './restore-marker.js';

/**
 * Refuses unless DATA_DIR holds nothing (a master.key put there for the restore is allowed), the
 * SQLite file does not exist, and a PostgreSQL database has no table in its schema. Checked before
 * anything is opened: opening SQLite or the local store creates files. After an interrupted
 * restore has been undone, DATA_DIR is not listed: its marker vouches that only the restore wrote there.
 */
async function assertEmptyTargets(config: Config, resuming: boolean): Promise<void> {
  // An empty blob folder is what a store opened to check the storage left, when a restore was cut before its marker.
  const local = config.storage.kind === 'local' && path.dirname(config.storage.dir) === config.dataDir ? config.storage.dir : undefined;
  const emptyBlobFolder = local && ((await entriesOf(local)) ?? []).every((name) => name === '.tmp') ? path.basename(local) : undefined;
  const expected = new Set([MASTER_KEY_FILE, `${RESTORE_MARKER_FILE}.partial`, emptyBlobFolder]);
  const unexpected = ((await entriesOf(config.dataDir)) ?? []).filter((name) => !expected.has(name));
  if (!resuming && unexpected.length > 0) {
    throw new CommandError(
      `DATA_DIR ${config.dataDir} is not empty (it holds ${unexpected.slice(0, 3).join(', ')}): restore only into an empty DATA_DIR`,
    );
  }
  if (config.database.kind === 'sqlite') {
    if (fs.existsSync(config.database.file))
      throw new CommandError(`the database file ${config.database.file} already exists: restore only into an empty database`);
    return;
  }
  const database = openDatabase(config.database);
  try {
    const tables = await listTables(database.db, 'postgres');
    if (tables.length > 0)
      throw new CommandError(`the PostgreSQL database already holds tables (${tables.slice(0, 3).join(', ')}): restore only into an empty database`);
  } finally {
    await database.close();
  }
}

const keyInBackup = async (from: string) => Buffer.from((await fsp.readFile(path.join(from, KEY_FILE), 'utf8')).trim(), 'base64');

/**
 * The key the manifest's signature is checked with: the one configured here, else the one the
 * backup holds, which shows the backup whole but not whose it is (whoever changed the backup
 * could have put their own key in it).
 */
async function manifestSigner(config: Config, from: string, manifest: Manifest): Promise<{ key: Buffer; whose: string } | undefined> {
  const configured = findMasterKey(config.masterKey, config.dataDir)?.key;
  if (configured) return { key: configured, whose: "this server's master key" };
  const held = manifest.masterKey?.included ? await keyInBackup(from).catch(() => undefined) : undefined;
  return held && { key: held, whose: 'the master key the backup holds' };
}

/** The restore's master key must be the backup's: a wrong one would make every restored file unreadable. */
async function keyForRestore(config: Config, from: string, manifest: Manifest): Promise<{ included?: Buffer; configured?: Buffer }> {
  const included = manifest.masterKey.included ? await keyInBackup(from) : undefined;
  const configured = findMasterKey(config.masterKey, config.dataDir)?.key;
  const key = configured ?? included;
  if (key && manifest.masterKey.fingerprint && masterKeyFingerprint(key) !== manifest.masterKey.fingerprint) {
    throw new CommandError(
      `the master key ${configured ? 'configured here' : 'in the backup'} is not the one this backup's files were sealed with (fingerprint ${manifest.masterKey.fingerprint}): set MASTER_KEY to the original key`,
    );
  }
  return { included, configured };
}

/** A newer linkvault's backup would restore, then fail every start: refused, naming the migration it needs. */
function assertKnownMigrations(recorded: readonly string[]): void {
  const known = migrationNames();
  const unknown = recorded.filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  throw new CommandError(
    `this backup was made by a newer linkvault: its database has run migration ${unknown.join(', ')}, which this linkvault (latest migration ${known.at(-1)}) does not know; restore it with a linkvault release that has migration ${unknown.at(-1)}`,
  );
}

/**
 * The backup's SQLite file, checked on a scratch copy before anything is written: SQLite's own
 * integrity check, the migrations it ran, and its schema against linkvault's at that migration.
 */
async function assertSoundDatabase(from: string): Promise<void> {
  const scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'linkvault-restore-check-'));
  try {
    const copy = path.join(scratch, DATABASE_FILE);
    await fsp.copyFile(path.join(from, DATABASE_FILE), copy);
    const database = openDatabase({ kind: 'sqlite', file: copy });
    try {
      const problem = await integrityProblem(database.db);
      if (problem) throw new CommandError(`the backup's database fails SQLite's integrity check (${problem}): restore another backup`);
      const { applied, unknown } = await database.migrationStatus();
      assertKnownMigrations(unknown);
      const latest = applied.at(-1);
      const difference = latest && (await schemaDifference(database.db, latest, path.join(scratch, 'reference.sqlite')));
      if (difference) throw new CommandError(`the backup's database was changed after the backup was made (${difference}): nothing was restored`);
    } finally {
      await database.close();
    }
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(`the backup's database cannot be read as SQLite (${(error as Error).message}): restore another backup`);
  } finally {
    await fsp.rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Takes back what an interrupted restore wrote, which it found empty: every blob of the storage,
 * the SQLite files, and a master.key unless the operator had put it there. Only in the storage
 * and database the marker names: a rerun configured for others is refused, or leaves them be.
 */
async function undoInterruptedRestore(config: Config, marker: RestoreMarker): Promise<void> {
  const now = restoreTargets(config);
  // Emptying storage the interrupted restore never wrote to would wipe a live install.
  if (marker.targets?.storage !== now.storage) {
    throw new CommandError(
      `${RESTORE_MARKER_FILE}: the interrupted restore wrote its blobs to ${marker.targets?.storage ?? 'a storage it did not record'}, ` +
        `but STORAGE_URL now names ${now.storage}: run it again with the storage it wrote to. Nothing was changed.`,
    );
  }
  say(`${RESTORE_MARKER_FILE}: a restore started at ${marker.startedAt} was interrupted; removing what it wrote before restoring again`);
  const blobs = await createBlobStore(config.storage);
  try {
    const written: string[] = [];
    for await (const key of blobs.keys()) written.push(key);
    for (const key of written) await blobs.delete(key);
  } finally {
    await blobs.close();
  }
  // A database it did not write (the first run named another) is left as it is: the restore then refuses it unless it is empty.
  if (config.database.kind === 'sqlite' && marker.targets.database === now.database) {
    for (const file of [...sqliteFiles(config.database.file), partialDatabaseFile(config.database.file)]) await fsp.rm(file, { force: true });
  }
  if (!marker.keyFileWasThere) await fsp.rm(path.join(config.dataDir, MASTER_KEY_FILE), { force: true });
}

/** Where the SQLite file is copied before it is renamed into place: a failed copy never leaves a half database. */
const partialDatabaseFile = (file: string) => `${file}.restoring`;

export async function restore(config: Config, options: { from: string; acceptUnsigned: boolean }): Promise<void> {
  const from = path.resolve(options.from);
  const manifest = await readManifest(from);
  // Before anything else: the checks below would otherwise read files that nobody vouches for.
  assertSignedManifest(manifest, await manifestSigner(config, from, manifest), options.acceptUnsigned);
  await assertFilesIntact(from, manifest);
  if (manifest.database.kind !== config.database.kind) {
    throw new CommandError(
      `this backup is of a ${manifest.database.kind} database, but DATABASE_URL names ${config.database.kind}: configure the same kind`,
    );
  }
  assertKnownMigrations(manifest.database.migrations ?? []);
  if (manifest.database.kind === 'sqlite') await assertSoundDatabase(from);
  const dump = config.database.kind === 'postgres' ? await checkPostgresDump(from, config.database.url) : undefined;
  const interrupted = readRestoreMarker(config.dataDir);
  if (interrupted && config.database.kind === 'postgres' && (await holdsRestoredDump(config.database.url, manifest))) {
    await removeRestoreMarker(config.dataDir);
    say(
      `${RESTORE_MARKER_FILE}: the restore started at ${interrupted.startedAt} had loaded the database, its last step; nothing was left to restore`,
    );
    return;
  }
  if (interrupted) await undoInterruptedRestore(config, interrupted);
  const keys = await keyForRestore(config, from, manifest);
  await assertEmptyTargets(config, interrupted !== undefined);

  const blobs = await createBlobStore(config.storage);
  try {
    // Refused before the marker: a rerun under it removes every blob it finds, as the restore's own.
    for await (const key of blobs.keys()) {
      throw new CommandError(`the blob storage is not empty (it holds ${key}): restore only into empty storage`);
    }
    await writeRestoreMarker(config.dataDir, {
      from,
      startedAt: new Date().toISOString(),
      keyFileWasThere: fs.existsSync(path.join(config.dataDir, MASTER_KEY_FILE)),
      targets: restoreTargets(config),
    });
    const blobFiles = manifest.files.filter((file) => file.path.startsWith(`${BLOBS_DIR}/`));
    for (const file of blobFiles) {
      await blobs.put(file.path.slice(BLOBS_DIR.length + 1), fs.createReadStream(path.join(from, ...file.path.split('/'))));
    }
    say(`restored ${blobFiles.length} blob(s) into ${config.storage.kind} storage`);
  } finally {
    await blobs.close();
  }

  if (config.database.kind === 'sqlite') {
    const partial = partialDatabaseFile(config.database.file);
    await makeOwnerOnlyFolder(path.dirname(config.database.file));
    // Streamed rather than copyFile, which gives the copy the backup file's mode: owner-only, whatever that was.
    await pipeline(fs.createReadStream(path.join(from, DATABASE_FILE)), fs.createWriteStream(partial, { flags: 'wx', mode: OWNER_ONLY_FILE }));
    await fsp.rename(partial, config.database.file);
    say(`restored the database to ${config.database.file} (migration ${manifest.database.latestMigration}; newer migrations run at the next start)`);
  }

  if (keys.included && !keys.configured) {
    await fsp.writeFile(path.join(config.dataDir, MASTER_KEY_FILE), keys.included.toString('base64') + '\n', { mode: OWNER_ONLY_FILE, flag: 'wx' });
    say(`restored the master key to ${path.join(config.dataDir, MASTER_KEY_FILE)}`);
  } else if (!keys.configured) {
    shout([
      'No master key is configured and the backup holds none. Before starting the server, set',
      `MASTER_KEY or put the original master.key in ${config.dataDir}: until then the server`,
      'refuses to start, since no stored file can be read without it.',
    ]);
  }
  if (config.database.kind === 'postgres' && dump) {
    // Last: the load commits all or nothing, so a rerun after it can tell that it is done.
    const command = await loadPostgresDump(config.database.url, dump);
    say(`restored the database (migration ${manifest.database.latestMigration}; newer migrations run at the next start) with: ${command}`);
  }
  await removeRestoreMarker(config.dataDir);
  say(`restore finished: ${manifest.database.rows.links ?? 0} links, ${manifest.storage.blobs} blobs, backed up at ${manifest.createdAt}`);
}
