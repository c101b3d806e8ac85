import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { countRows } from '../db/inventory.js';
import { openDatabase, type DatabaseHandle } from '../db/kysely.js';
import { findMasterKey, MASTER_KEY_FILE, masterKeyFingerprint } from '../infra/crypto/master-key.js';
import { createOwnerOnlyFile, makeOwnerOnlyFolder, OWNER_ONLY_FILE, OWNER_ONLY_FOLDER } from '../db/owner-only.js';
import { BlobNotFoundError, createBlobStore, type BlobStore } from '../infra/storage/index.js';
import {
  BLOBS_DIR,
  DATABASE_FILE,
  describeFile,
  KEY_FILE,
  MANIFEST_FILE,
  PG_DUMP_FILE,
  signedManifest,
  writeHashed,
  type BackupFile,
} from './backup-manifest.js';
import { CommandError } from './command-error.js';
import { entriesOf } from './folders.js';
import { say, shout } from './output.js';
import { pgDumpArguments, pgDumpCommand } from './pg-guidance.js';
import { runPostgresTool } from './pg-tools.js';

const isInside = (child: string, parent: string) => child === parent || child.startsWith(parent + path.sep);

/** Opens the database and the blob store together, closing both whatever `work` does. */
async function withStores<T>(config: Config, work: (database: DatabaseHandle, blobs: BlobStore) => Promise<T>): Promise<T> {
  const database = openDatabase(config.database);
  try {
    const blobs = await createBlobStore(config.storage);
    try {
      return await work(database, blobs);
    } finally {
      await blobs.close();
    }
  } finally {
    await database.close();
  }
}

/** Copies every blob into `<to>/blobs/<key>`, hashing as it writes; a blob deleted meanwhile is skipped. */
async function copyBlobs(blobs: BlobStore, to: string): Promise<{ files: BackupFile[]; vanished: number }> {
  const files: BackupFile[] = [];
  let vanished = 0;
  for await (const key of blobs.keys()) {
    const relative = `${BLOBS_DIR}/${key}`;
    try {
      const written = await writeHashed(await blobs.get(key), path.join(to, ...relative.split('/')));
      files.push({ path: relative, ...written });
    } catch (error) {
      if (!(error instanceof BlobNotFoundError)) throw error;
      vanished++; // deleted between the listing and the read: its link was deleted or replaced meanwhile
    }
  }
  return { files, vanished };
}

/** `dir` with its symlinks resolved, also when it does not exist yet: its nearest existing parent's real path, and the rest. */
async function realPathOf(dir: string): Promise<string> {
  try {
    return await fsp.realpath(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(dir) === dir) throw error;
    return path.join(await realPathOf(path.dirname(dir)), path.basename(dir));
  }
}

/**
 * Runs the pg_dump command the backup prints, into the backup folder, before the blobs are copied:
 * a file uploaded meanwhile is then an extra blob, never a link whose blob is missing. The dump is
 * made owner-only before pg_dump writes it.
 */
async function dumpPostgres(databaseUrl: string, to: string): Promise<void> {
  const dumpFile = path.join(to, PG_DUMP_FILE);
  createOwnerOnlyFile(dumpFile);
  await runPostgresTool(
    'pg_dump',
    pgDumpArguments(databaseUrl, dumpFile),
    databaseUrl,
    (reason) =>
      `pg_dump failed (${reason}): install PostgreSQL's client tools of the server's major version and check DATABASE_URL, then run backup again into an empty folder`,
  );
}

export async function backup(config: Config, options: { to: string; includeMasterKey: boolean }): Promise<void> {
  const to = await realPathOf(path.resolve(options.to));
  if (isInside(to, await realPathOf(config.dataDir))) {
    throw new CommandError(
      `${to} is inside DATA_DIR ${config.dataDir}: a backup there is lost with the data it copies; choose a folder outside DATA_DIR`,
    );
  }
  const existing = await entriesOf(to);
  if (existing && existing.length > 0) {
    throw new CommandError(`${to} is not empty: a backup goes into a new or empty folder, so that it never mixes with another`);
  }
  if (config.storage.kind === 'local' && isInside(to, await realPathOf(config.storage.dir))) {
    throw new CommandError(`${to} is inside the blob storage folder ${config.storage.dir}: choose a folder outside it`);
  }
  if (config.database.kind === 'sqlite' && !fs.existsSync(config.database.file)) {
    throw new CommandError(`there is no database at ${config.database.file}: check DATA_DIR and DATABASE_URL`);
  }
  const masterKey = findMasterKey(config.masterKey, config.dataDir);
  if (!masterKey) {
    throw new CommandError(
      `there is no master key (MASTER_KEY is not set and there is no ${path.join(config.dataDir, MASTER_KEY_FILE)}): a backup's manifest is signed with it, so run backup with the server's MASTER_KEY`,
    );
  }

  await withStores(config, async (database, blobs) => {
    const { applied } = await database.migrationStatus();
    if (applied.length === 0) throw new CommandError('the database holds no linkvault data yet (no migration has run): nothing to back up');
    // The owner's alone: the copy of the database, and blob folders named after links.
    await makeOwnerOnlyFolder(to);
    await fsp.chmod(to, OWNER_ONLY_FOLDER);

    const files: BackupFile[] = [];
    let migrations = applied;
    let rows: Record<string, number>;
    if (config.database.kind === 'sqlite') {
      // The online backup API copies a consistent state while the server keeps writing.
      await database.snapshotTo(path.join(to, DATABASE_FILE));
      // Rows and migrations are read from the snapshot itself, so the manifest describes what the backup holds.
      const snapshot = openDatabase({ kind: 'sqlite', file: path.join(to, DATABASE_FILE) });
      try {
        migrations = (await snapshot.migrationStatus()).applied;
        rows = await countRows(snapshot.db, 'sqlite');
      } finally {
        await snapshot.close();
      }
      files.push(await describeFile(to, DATABASE_FILE));
    } else {
      rows = await countRows(database.db, 'postgres');
      await dumpPostgres(config.database.url, to);
      files.push(await describeFile(to, PG_DUMP_FILE));
    }

    // Blobs after the database: a link created meanwhile only adds an unreferenced blob.
    const copied = await copyBlobs(blobs, to);
    files.push(...copied.files);

    if (options.includeMasterKey) {
      await fsp.writeFile(path.join(to, KEY_FILE), masterKey.key.toString('base64') + '\n', { mode: OWNER_ONLY_FILE, flag: 'wx' });
      files.push(await describeFile(to, KEY_FILE));
    }
    const manifest = signedManifest(
      {
        createdAt: new Date().toISOString(),
        database: { kind: config.database.kind, migrations, latestMigration: migrations.at(-1) ?? null, rows },
        storage: {
          kind: config.storage.kind,
          blobs: copied.files.length,
          bytes: copied.files.reduce((sum, file) => sum + file.size, 0),
        },
        masterKey: { fingerprint: masterKeyFingerprint(masterKey.key), included: options.includeMasterKey },
        files,
      },
      masterKey.key,
    );
    await fsp.writeFile(path.join(to, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: OWNER_ONLY_FILE });

    say(`backup written to ${to}`);
    say(
      `  database: ${config.database.kind}, migration ${manifest.database.latestMigration}, ${rows.links ?? 0} links, ${rows.accounts ?? 0} accounts`,
    );
    say(`  blobs: ${manifest.storage.blobs} (${manifest.storage.bytes} bytes) from ${config.storage.kind} storage`);
    if (copied.vanished > 0) say(`  ${copied.vanished} blob(s) were deleted while the backup ran and are not in it`);
    if (config.database.kind === 'postgres') {
      say(`  the database was dumped before the blobs were copied, with: ${pgDumpCommand(config.database.url, path.join(to, PG_DUMP_FILE))}`);
    }
    warnAboutMasterKey(config, masterKey.source, manifest.masterKey.included);
  });
}

function warnAboutMasterKey(config: Config, source: 'MASTER_KEY' | 'file', included: boolean): void {
  if (included) {
    shout([
      'This backup INCLUDES the master key (master.key): whoever holds the backup can read',
      'every stored file. Keep it encrypted and as closely guarded as the server itself.',
    ]);
    return;
  }
  const where = source === 'MASTER_KEY' ? 'the MASTER_KEY environment variable' : `${path.join(config.dataDir, MASTER_KEY_FILE)}`;
  shout([
    'The master key is NOT in this backup. Without it the blobs cannot be decrypted:',
    `keep a copy of ${where} somewhere else, safe and apart from the backup.`,
    'To put it in the backup instead, run backup with --include-master-key.',
  ]);
}
