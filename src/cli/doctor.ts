import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openDatabase, sqliteFiles, type DatabaseHandle } from '../db/kysely.js';
import { CONVERSION_OFF, findSoffice, isExecutableFile } from '../infra/convert/locate-soffice.js';
import { probeNetworkIsolation } from '../infra/convert/offline-office.js';
import { unwrapFileKey } from '../infra/crypto/envelope.js';
import { findMasterKey, MASTER_KEY_FILE } from '../infra/crypto/master-key.js';
import { octal, openToGroupOrOthers, type OpenFile } from '../db/owner-only.js';
import { SEGMENT_SIZE } from '../infra/crypto/segmented-aead.js';
import { createTransportCache, transportSettingsFromUrl } from '../infra/mail/index.js';
import { BlobNotFoundError, createBlobStore, type BlobStore } from '../infra/storage/index.js';
import { createFileReader } from '../modules/files/file-reader.js';
import { createLinkRecords } from '../modules/links/links.service.js';

type Status = 'ok' | 'warn' | 'FAIL';
export interface CheckResult {
  check: string;
  status: Status;
  message: string;
}

/**
 * No single check may hang the doctor: a peer that does not answer is a failure after this long.
 * The clients are bounded too (PostgreSQL's connect and queries, each S3 request, SMTP's steps),
 * so that nothing keeps waiting on the peer once the check has given up on it.
 */
const CHECK_TIMEOUT_MS = 10_000;

async function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A close waits on the peer too (a pool says goodbye to its server): bounded like a check, and never its failure. */
async function closeWithin(closable: { close(): Promise<void> } | undefined, what: string): Promise<void> {
  if (closable) await withTimeout(closable.close(), what).catch(() => undefined);
}

/**
 * A check's answer, failed when one of `files` lets group or others in: the database and the
 * master key each hold, or open, every account's data, and the folders they and the blobs are in
 * list them (blob folders are named after links). A failure of the check itself comes first.
 */
function failWhenOpenToOthers([status, message]: [Status, string], open: readonly OpenFile[], fix = 'chmod 600'): [Status, string] {
  if (open.length === 0 || status === 'FAIL') return [status, message];
  const named = open.map(({ file, mode }) => `${file} (${octal(mode)})`).join(', ');
  return ['FAIL', `${named} can be read by group or others: ${fix} ${open.map(({ file }) => file).join(' ')}; ${message}`];
}

async function checkDatabase(config: Config, report: (status: Status, message: string) => void): Promise<DatabaseHandle | undefined> {
  if (config.database.kind === 'sqlite' && !fs.existsSync(config.database.file)) {
    report('warn', `no database yet at ${config.database.file}: \`linkvault migrate\` or the first start creates it`);
    return undefined;
  }
  // Looked at before opening, which makes the -wal and -shm files in the database file's mode; the
  // doctor reports a mode open to others, the server narrows it when it opens the database.
  const open = config.database.kind === 'sqlite' ? openToGroupOrOthers(sqliteFiles(config.database.file)) : [];
  const database = openDatabase(config.database, { keepModes: true, timeoutMs: CHECK_TIMEOUT_MS });
  try {
    await withTimeout(database.ping(), 'the database');
    report(...failWhenOpenToOthers(['ok', `${config.database.kind} answers`], open));
    return database;
  } catch (error) {
    report('FAIL', `${config.database.kind} does not answer: ${reason(error)}`);
    await closeWithin(database, 'the database');
    return undefined;
  }
}

async function checkMigrations(database: DatabaseHandle): Promise<[Status, string]> {
  const { applied, pending, unknown } = await withTimeout(database.migrationStatus(), 'the database');
  if (unknown.length > 0) {
    return ['FAIL', `the database records ${unknown.join(', ')}, which this linkvault does not know: run the version that wrote it, or a later one`];
  }
  if (pending.length === 0) return ['ok', `all ${applied.length} applied (latest ${applied.at(-1)})`];
  return ['FAIL', `${pending.length} pending (${pending.join(', ')}): run \`linkvault migrate\` or start the server once`];
}

/** Local disk, looked at without writing: the folder uploads, views and deletions need to read, write and enter. */
async function lookAtBlobFolder(dir: string): Promise<[Status, string]> {
  let stats: fs.Stats;
  try {
    stats = await fsp.stat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return ['warn', `no blob folder yet at ${dir}: the first start creates it (looked at only, nothing written)`];
    return ['FAIL', `cannot look at ${dir}: ${reason(error)}`];
  }
  if (!stats.isDirectory()) return ['FAIL', `${dir} is not a folder`];
  try {
    await fsp.access(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return ['FAIL', `this user cannot read and write ${dir}: give the folder to the user linkvault runs as`];
  }
  return ['ok', `${dir} is a folder this user can read and write (looked at only, nothing written)`];
}

/**
 * S3: writes, reads back and deletes a probe blob, since only a write shows that the credentials
 * may write; the probe is the one object it makes, and a bucket has no folders to leave behind.
 */
async function probeBucket(blobs: BlobStore, where: string): Promise<[Status, string]> {
  const key = `doctor/probe-${randomBytes(8).toString('hex')}`;
  const probe = randomBytes(1024);
  try {
    await withTimeout(blobs.put(key, Readable.from([probe])), 'the blob storage');
  } catch (error) {
    return ['FAIL', `cannot write to ${where}: ${reason(error)}`];
  }
  try {
    const read = await withTimeout(blobs.get(key).then(buffer), 'the blob storage');
    if (!read.equals(probe)) return ['FAIL', `${where} gave back other bytes than were written`];
  } catch (error) {
    return ['FAIL', `wrote to ${where} but cannot read back: ${reason(error)}`];
  } finally {
    await withTimeout(blobs.delete(key), 'the blob storage').catch(() => undefined);
  }
  try {
    await withTimeout(blobs.size(key), 'the blob storage');
    return ['FAIL', `${where} still holds the probe blob ${key} after deleting it`];
  } catch (error) {
    if (error instanceof BlobNotFoundError) return ['ok', `wrote, read back and deleted a probe blob in ${where} (nothing left behind)`];
    return ['FAIL', `cannot check a deletion in ${where}: ${reason(error)}`];
  }
}

/** Reports the storage check and answers the store, open, for the master key check; undefined when storage failed. */
async function checkStorage(config: Config, report: (status: Status, message: string) => void): Promise<BlobStore | undefined> {
  let blobs: BlobStore;
  try {
    blobs = await createBlobStore(config.storage, { inspectOnly: true, timeoutMs: CHECK_TIMEOUT_MS });
  } catch (error) {
    report('FAIL', `cannot open the blob storage: ${reason(error)}`);
    return undefined;
  }
  let result: [Status, string];
  try {
    result =
      config.storage.kind === 'local'
        ? failWhenOpenToOthers(await lookAtBlobFolder(config.storage.dir), openToGroupOrOthers([config.storage.dir], 'folder'), 'chmod 700')
        : await probeBucket(blobs, `s3://${config.storage.bucket}`);
  } catch (error) {
    result = ['FAIL', reason(error)];
  }
  report(...result);
  if (result[0] !== 'FAIL') return blobs;
  await closeWithin(blobs, 'the blob storage');
  return undefined;
}

/** Opens the first segment of one stored file: proves the master key is the one the files were sealed with. */
async function checkMasterKey(config: Config, database: DatabaseHandle | undefined, blobs: BlobStore | undefined): Promise<[Status, string]> {
  const found = findMasterKey(config.masterKey, config.dataDir);
  const keyFile = path.join(config.dataDir, MASTER_KEY_FILE);
  if (!database || !blobs) {
    if (!found) return ['warn', `no MASTER_KEY and no ${keyFile} yet; no stored file could be checked`];
    return [
      'warn',
      `loaded from ${found.source === 'MASTER_KEY' ? 'MASTER_KEY' : keyFile}, but no stored file could be opened (database or storage unavailable)`,
    ];
  }
  const file = await createLinkRecords({ db: database.db }).anyStoredFile();
  if (!found) {
    if (file) return ['FAIL', `no MASTER_KEY and no ${keyFile}, but files are stored: they cannot be read without their key`];
    return ['warn', `no MASTER_KEY and no ${keyFile} yet: the first start creates the key file; back it up apart from the data`];
  }
  const source = found.source === 'MASTER_KEY' ? 'MASTER_KEY' : keyFile;
  if (!file) return ['ok', `loaded from ${source}; no stored file to open yet`];
  try {
    unwrapFileKey(found.key, file.wrappedKey);
  } catch {
    return ['FAIL', `the key from ${source} does not open the file key of link ${file.linkId}: it is not the key these files were sealed with`];
  }
  try {
    const range = file.size === 0 ? undefined : { start: 0, endInclusive: Math.min(file.size, SEGMENT_SIZE) - 1 };
    await withTimeout(createFileReader({ blobs, masterKey: found.key }).open(file, range).then(buffer), 'the blob storage');
    return ['ok', `the key from ${source} decrypts stored files (checked link ${file.linkId})`];
  } catch (error) {
    if (error instanceof BlobNotFoundError) return ['FAIL', `the blob of link ${file.linkId} (${file.blobKey}) is missing from storage`];
    return ['FAIL', `the first segment of link ${file.linkId} does not decrypt: ${reason(error)}`];
  }
}

async function checkSmtp(config: Config): Promise<[Status, string]> {
  if (!config.smtpUrl) return ['warn', 'SMTP_URL is not set: no e-mail is sent (one-time codes, notices), except through an account’s own SMTP'];
  const settings = transportSettingsFromUrl(config.smtpUrl, config.mailFrom);
  const transports = createTransportCache(1);
  try {
    await withTimeout(transports.get(settings).verify(), `SMTP server ${settings.host}:${settings.port}`);
    return ['ok', `SMTP server ${settings.host}:${settings.port} answered${settings.user !== undefined ? ' and accepted the login' : ''}`];
  } catch (error) {
    return ['FAIL', `SMTP server ${settings.host}:${settings.port}: ${reason(error)}`];
  } finally {
    transports.closeAll();
  }
}

async function checkRedis(config: Config): Promise<[Status, string]> {
  if (!config.redisUrl) return ['ok', 'not configured: rate limits are counted per process (fine for one replica)'];
  const { Redis } = await import('ioredis');
  const where = new URL(config.redisUrl).host;
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000, retryStrategy: () => null });
  redis.on('error', () => undefined); // the failure is reported by connect()
  try {
    await withTimeout(
      redis.connect().then(() => redis.ping()),
      `Redis at ${where}`,
    );
    return ['ok', `Redis at ${where} answers`];
  } catch (error) {
    return ['FAIL', `Redis at ${where}: ${reason(error)}`];
  } finally {
    redis.disconnect();
  }
}

/** LibreOffice turns Office documents into PDF; without it they are offered as downloads only. */
async function checkConverter(config: Config, env: Record<string, string | undefined>): Promise<[Status, string]> {
  if (config.sofficePath === CONVERSION_OFF)
    return ['ok', 'Office conversion is turned off (SOFFICE_PATH=none): Office documents are offered as downloads only'];
  const found = findSoffice(config.sofficePath, env.PATH);
  if (config.sofficePath && !isExecutableFile(config.sofficePath)) return ['FAIL', `SOFFICE_PATH ${config.sofficePath} is not an executable file`];
  if (!found)
    return ['warn', 'LibreOffice (soffice) is not installed: Office documents cannot be converted (apt-get install libreoffice-writer-nogui …)'];
  const isolation = await probeNetworkIsolation({ PATH: env.PATH });
  if (isolation.kind === 'none') {
    return [
      'warn',
      `LibreOffice at ${found}; no network namespace can be made here (unshare refused), so only its offline profile keeps it from fetching what documents link to`,
    ];
  }
  return ['ok', `LibreOffice at ${found}, run without a network (${isolation.kind === 'user-namespace' ? 'unshare --user --net' : 'unshare --net'})`];
}

/** Runs every check, each on its own (one failing does not hide the others), and answers them in order. */
export async function runChecks(env: Record<string, string | undefined>): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const record = (check: string, [status, message]: [Status, string]) => void results.push({ check, status, message });
  const guarded = async (check: string, run: () => Promise<[Status, string]> | [Status, string]) => {
    try {
      record(check, await run());
    } catch (error) {
      record(check, ['FAIL', reason(error)]);
    }
  };

  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    record('configuration', ['FAIL', error.message]);
    return results;
  }
  record('configuration', [
    'ok',
    `DATA_DIR ${config.dataDir}, ${config.database.kind} database, ${config.storage.kind} storage, public URL ${config.publicUrl}`,
  ]);

  const database = await checkDatabase(config, (status, message) => record('database', [status, message]));
  let blobs: BlobStore | undefined;
  try {
    if (database) await guarded('migrations', () => checkMigrations(database));
    else record('migrations', ['warn', 'not checked: no database']);
    blobs = await checkStorage(config, (status, message) => record('storage', [status, message]));
    await guarded('master key', async () =>
      failWhenOpenToOthers(
        failWhenOpenToOthers(await checkMasterKey(config, database, blobs), openToGroupOrOthers([path.join(config.dataDir, MASTER_KEY_FILE)])),
        openToGroupOrOthers([config.dataDir], 'folder'),
        'chmod 700',
      ),
    );
  } finally {
    await closeWithin(blobs, 'the blob storage');
    await closeWithin(database, 'the database');
  }
  await guarded('smtp', () => checkSmtp(config));
  await guarded('redis', () => checkRedis(config));
  await guarded('converter', () => checkConverter(config, env));
  return results;
}

/** `linkvault doctor`: one line per check (or one JSON document); answers the exit code, 1 if any check failed. */
export async function doctor(env: Record<string, string | undefined>, options: { json: boolean }): Promise<number> {
  const results = await runChecks(env);
  const healthy = results.every((result) => result.status !== 'FAIL');
  if (options.json) console.log(JSON.stringify({ ok: healthy, checks: results }));
  else for (const result of results) console.log(`${result.status.padEnd(4)}  ${result.check.padEnd(13)}  ${result.message}`);
  return healthy ? 0 : 1;
}
