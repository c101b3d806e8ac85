import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { access, chmod, lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { isGoneOwner, processOwner } from '../process-owner.js';
import { probeNetworkIsolation, writeOfflineProfile, type NetworkIsolation } from './offline-office.js';

/** File extensions LibreOffice turns into a PDF here. */
export const CONVERTIBLE_EXTENSIONS: ReadonlySet<string> = new Set([
  'doc',
  'docx',
  'ppt',
  'pptx',
  'xls',
  'xlsx',
  'odt',
  'odp',
  'ods',
  'rtf',
  'txt',
  'csv',
  'key',
  'pages',
  'numbers',
]);

/** Extensionless plain files that are still converted, by their MIME type. */
const EXTENSION_OF_MIME: ReadonlyMap<string, string> = new Map([
  ['text/plain', 'txt'],
  ['text/csv', 'csv'],
]);

/** How much of LibreOffice's output is kept for the logs: its last lines say why it failed. */
const OUTPUT_TAIL_BYTES = 4096;

/**
 * Each conversion's folder, `linkvault-convert-<pid>@<host>-XXXXXX`: it holds the decrypted
 * document and its PDF, so a start removes those a crashed process left (removeAbandonedJobFolders).
 * No `~`: pathToFileURL escapes it in the profile URL, LibreOffice does not in its socket's name.
 */
const JOB_FOLDER_PREFIX = 'linkvault-convert-';
const JOB_FOLDER_OWNER = /^linkvault-convert-(\d+@.+)-\w{6}$/;
/** No conversion lasts this long (CONVERT_TIMEOUT_SECONDS is at most an hour): its folder is left from a crash. */
const ABANDONED_JOB_AGE_MS = 86_400_000;

/**
 * The extension (no dot) under which a file with this name and MIME type is converted, or null
 * when it is not: by its extension, lower-cased; a name without one by its MIME type (plain text, CSV).
 */
export function convertibleExtension(name: string, mime: string): string | null {
  const extension = path.posix
    .extname(path.posix.basename(name.replaceAll('\\', '/')))
    .slice(1)
    .toLowerCase();
  if (extension !== '') return CONVERTIBLE_EXTENSIONS.has(extension) ? extension : null;
  return EXTENSION_OF_MIME.get(mime.split(';')[0]!.trim().toLowerCase()) ?? null;
}

/** Whether a file with this name and MIME type is converted (by extension, lower-cased; mime used for text/plain and text/csv without extension). */
export function isConvertible(name: string, mime: string): boolean {
  return convertibleExtension(name, mime) !== null;
}

/**
 * A conversion that did not give a PDF. The message is shown to the document's owner, so it
 * names no path of this machine; `detail` (LibreOffice's last output) is for the logs only.
 */
export class ConversionError extends Error {
  override name = 'ConversionError';
  constructor(
    readonly reason: 'timeout' | 'failed' | 'too-large' | 'unavailable',
    message: string,
    readonly detail = '',
  ) {
    super(message);
  }
}

export interface OfficeConverter {
  /** Whether the soffice binary exists and is executable (cached after the first check). */
  available(): Promise<boolean>;
  /** How LibreOffice is kept off the network on this machine (probed once). */
  isolation(): Promise<NetworkIsolation>;
  /** The PDF bytes of `input` (the plain document, streamed into a private temp dir). `extension` without the dot. */
  toPdf(input: NodeJS.ReadableStream | Buffer, extension: string, options?: { signal?: AbortSignal }): Promise<Buffer>;
}

const MIB = 1024 * 1024;
const DEFAULT_MAX_PDF_BYTES = 256 * MIB;
const sizeLabel = (bytes: number) => (bytes >= MIB ? `${Math.floor(bytes / MIB)} MB` : `${Math.floor(bytes / 1024)} KB`);

export interface OfficeConverterOptions {
  sofficePath: string;
  timeoutMs: number;
  /** The address-space limit of the LibreOffice process group (ulimit -v), in MiB. */
  memoryLimitMb: number;
  /** The largest PDF a conversion may give, read whole into memory (and then into PDFium's): 256 MiB by default. */
  maxPdfBytes?: number;
  /** Where each conversion makes its private directory; os.tmpdir() by default. */
  tempRoot?: string;
  /** Called with the pid (also the process group id) of each LibreOffice started: for tests only. */
  onSpawn?: (pid: number) => void;
}

export function createOfficeConverter(options: OfficeConverterOptions): OfficeConverter {
  const { sofficePath, timeoutMs, maxPdfBytes = DEFAULT_MAX_PDF_BYTES } = options;
  if (!Number.isInteger(options.memoryLimitMb) || options.memoryLimitMb <= 0) throw new TypeError('memoryLimitMb must be a positive integer');
  // Only this number is spliced into the shell line; the binary and its arguments go as "$0" "$@".
  const limitKib = options.memoryLimitMb * 1024;
  let availability: Promise<boolean> | undefined;
  let probedIsolation: Promise<NetworkIsolation> | undefined;

  const tempRoot = path.resolve(options.tempRoot ?? os.tmpdir());
  // At once, as the blob store does with its temp files: a crash loop must not fill the disk with decrypted documents.
  void removeAbandonedJobFolders(tempRoot);

  const available = () => (availability ??= isExecutableFile(sofficePath));
  const isolation = () => (probedIsolation ??= probeNetworkIsolation(childEnvironment(os.tmpdir(), os.tmpdir())));

  async function toPdf(input: NodeJS.ReadableStream | Buffer, extension: string, { signal }: { signal?: AbortSignal } = {}): Promise<Buffer> {
    const ext = extension.toLowerCase();
    if (!CONVERTIBLE_EXTENSIONS.has(ext)) throw new ConversionError('failed', 'This file type cannot be converted to PDF');
    if (!(await available())) throw new ConversionError('unavailable', 'Document conversion is not available on this server');
    if (signal?.aborted) throw new ConversionError('timeout', 'The conversion was cancelled');

    const offline = await isolation();
    // The real path: LibreOffice names its IPC socket after the profile URL with symlinks resolved.
    const jobDir = await realpath(await mkdtemp(path.join(tempRoot, `${JOB_FOLDER_PREFIX}${processOwner()}-`)));
    const profileDir = path.join(jobDir, 'profile');
    const profileUrl = pathToFileURL(profileDir).href;
    try {
      await chmod(jobDir, 0o700);
      await Promise.all(['in', 'out', 'home', 'tmp'].map((folder) => mkdir(path.join(jobDir, folder), { mode: 0o700 })));
      await writeOfflineProfile(profileDir);
      // The name on disk is ours, never the uploader's: LibreOffice sees only document.<ext>.
      const inputPath = path.join(jobDir, 'in', `document.${ext}`);
      try {
        if (Buffer.isBuffer(input)) await writeFile(inputPath, input, { mode: 0o600, flag: 'wx' });
        else await pipeline(input, createWriteStream(inputPath, { mode: 0o600, flags: 'wx' }), { signal });
      } catch (error) {
        if (signal?.aborted) throw new ConversionError('timeout', 'The conversion was cancelled');
        throw error; // the caller's stream failed: not the document's fault, so not a ConversionError
      }

      const [command, ...prefix] = [...offline.prefix, sofficePath];
      const args = [
        ...prefix,
        '--headless',
        '--norestore',
        '--nolockcheck',
        '--nodefault',
        '--nologo',
        `-env:UserInstallation=${profileUrl}`,
        '--convert-to',
        'pdf',
        '--outdir',
        path.join(jobDir, 'out'),
        inputPath,
      ];
      const run = await runInOwnGroup({ command: command!, args, limitKib, jobDir, timeoutMs, signal, onSpawn: options.onSpawn });
      const detail = run.output.replaceAll(jobDir, '<job>');
      if (run.outcome === 'timeout') throw new ConversionError('timeout', 'LibreOffice took too long to convert this file', detail);
      if (run.exitCode !== 0)
        throw new ConversionError('failed', `LibreOffice could not convert this file (exit code ${run.exitCode ?? run.exitSignal})`, detail);
      // LibreOffice exits 0 on a file it cannot load ("source file could not be loaded"): no PDF is the sign.
      const output = path.join(jobDir, 'out', 'document.pdf');
      const size = (await stat(output).catch(() => null))?.size ?? 0;
      if (size === 0) throw new ConversionError('failed', 'LibreOffice could not convert this file', detail);
      // A small spreadsheet can spread over more pages than anyone reads: it is not read into memory.
      if (size > maxPdfBytes) {
        throw new ConversionError('too-large', `Converted to PDF, this file would be larger than ${sizeLabel(maxPdfBytes)}`, detail);
      }
      return await readFile(output);
    } finally {
      await rm(jobDir, { recursive: true, force: true, maxRetries: 3 });
      await removeIpcSocket(profileUrl, offline.uid);
    }
  }

  return { available, isolation, toPdf };
}

/**
 * Removes the conversion folders no conversion can still be using: those of a process of this
 * machine that is gone, and any older than a conversion may last (another machine's sharing
 * this folder, or one named before folders carried their process). Replicas on one machine
 * share its temp folder: a live process's folders stay.
 */
async function removeAbandonedJobFolders(root: string): Promise<void> {
  const abandonedBefore = Date.now() - ABANDONED_JOB_AGE_MS;
  const names = await readdir(root).catch(() => []);
  for (const name of names.filter((entry) => entry.startsWith(JOB_FOLDER_PREFIX))) {
    const folder = path.join(root, name);
    // lstat: a link planted in a shared temp folder is never followed.
    const info = await lstat(folder).catch(() => undefined);
    const owner = JOB_FOLDER_OWNER.exec(name)?.[1];
    const abandoned = (owner !== undefined && isGoneOwner(owner)) || (info !== undefined && info.mtimeMs < abandonedBefore);
    if (info?.isDirectory() && abandoned) await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Nothing of the server's environment (its secrets) reaches LibreOffice; HOME and TMPDIR stay in the job. */
function childEnvironment(home: string, tmp: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8' };
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

interface GroupRun {
  outcome: 'exited' | 'timeout';
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  /** The last OUTPUT_TAIL_BYTES of stdout and stderr together. */
  output: string;
}

/**
 * Runs `command` under an address-space limit as the leader of its own process group, so a
 * timeout or an abort kills LibreOffice and everything it started (oosplash, soffice.bin).
 */
async function runInOwnGroup(job: {
  command: string;
  args: string[];
  limitKib: number;
  jobDir: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  onSpawn: ((pid: number) => void) | undefined;
}): Promise<GroupRun> {
  const child = spawn('/bin/sh', ['-c', `ulimit -v ${job.limitKib}; exec "$0" "$@"`, job.command, ...job.args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: job.jobDir,
    env: childEnvironment(path.join(job.jobDir, 'home'), path.join(job.jobDir, 'tmp')),
  });
  let tail = Buffer.alloc(0);
  const keepTail = (chunk: Buffer) => {
    tail = Buffer.concat([tail, chunk]);
    if (tail.length > OUTPUT_TAIL_BYTES) tail = tail.subarray(tail.length - OUTPUT_TAIL_BYTES);
  };
  child.stdout.on('data', keepTail);
  child.stderr.on('data', keepTail);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', reject);
  });
  const pid = child.pid;
  if (pid === undefined) {
    await exited.catch(() => undefined);
    throw new ConversionError('unavailable', 'Document conversion is not available on this server');
  }
  job.onSpawn?.(pid);

  let timedOut = false;
  const stop = () => {
    timedOut = true;
    killGroup(pid);
  };
  const timer = setTimeout(stop, job.timeoutMs);
  job.signal?.addEventListener('abort', stop, { once: true });
  if (job.signal?.aborted) stop();
  try {
    const { code, signal } = await exited;
    return { outcome: timedOut ? 'timeout' : 'exited', exitCode: code, exitSignal: signal, output: tail.toString('utf8') };
  } finally {
    clearTimeout(timer);
    job.signal?.removeEventListener('abort', stop);
    // The leader has exited; anything it left behind in its group (a stray soffice.bin) goes too.
    if (groupIsAlive(pid)) killGroup(pid);
  }
}

/**
 * LibreOffice's single-instance socket lives in /tmp (or /var/tmp) whatever TMPDIR says, named
 * after the MD5 of the profile URL in UTF-16, each byte in unpadded hex (oosplash's get_pipe_path).
 * It removes it on a normal exit; after a kill or a crash it would stay behind, one per job.
 */
async function removeIpcSocket(profileUrl: string, uid: number): Promise<void> {
  const hash = [...createHash('md5').update(profileUrl, 'utf16le').digest()].map((byte) => byte.toString(16)).join('');
  const name = `OSL_PIPE_${uid}_SingleOfficeIPC_${hash}`;
  await Promise.all(['/tmp', '/var/tmp'].map((folder) => rm(path.join(folder, name), { force: true }).catch(() => undefined)));
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

function groupIsAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
