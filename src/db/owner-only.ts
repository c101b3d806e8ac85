import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** Owner-only: what the database, its copies and the master key need, since they hold every account's data or the key to it. */
export const OWNER_ONLY_FILE = 0o600;
export const OWNER_ONLY_FOLDER = 0o700;
const GROUP_OR_OTHERS = 0o077;

export interface OpenFile {
  file: string;
  /** its permission bits, as `chmod` writes them: 0644 */
  mode: number;
}

export const octal = (mode: number) => `0${mode.toString(8)}`;

/** What a path is expected to be: anything else there (a folder where a file was expected) is left for its opening to report. */
type Kind = 'file' | 'folder';

/**
 * Those of `files` that group or others may use (read, write or run; list or enter, for folders).
 * Only paths of `kind` count: a missing path is not open.
 */
export function openToGroupOrOthers(files: readonly string[], kind: Kind = 'file'): OpenFile[] {
  return files.flatMap((file) => {
    const mode = modeOf(file, kind);
    return mode !== undefined && (mode & GROUP_OR_OTHERS) !== 0 ? [{ file, mode }] : [];
  });
}

/**
 * Takes group's and others' access away from those of `files` that have it; answers those narrowed,
 * with the mode each had, and those left as they were because this process does not own them.
 */
export function narrowToOwner(files: readonly string[], kind: Kind = 'file'): { narrowed: OpenFile[]; notOwned: OpenFile[] } {
  const narrowed: OpenFile[] = [];
  const notOwned: OpenFile[] = [];
  for (const open of openToGroupOrOthers(files, kind)) {
    try {
      fs.chmodSync(open.file, open.mode & ~GROUP_OR_OTHERS);
      narrowed.push(open);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
      notOwned.push(open);
    }
  }
  return { narrowed, notOwned };
}

/** Creates `file` empty and owner-only, unless it exists (then it is left as it is). */
export function createOwnerOnlyFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', OWNER_ONLY_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** The permission bits of `file` when it is of `kind` (or a link to one). */
function modeOf(file: string, kind: Kind): number | undefined {
  try {
    const stats = fs.statSync(file);
    return (kind === 'file' ? stats.isFile() : stats.isDirectory()) ? stats.mode & 0o777 : undefined;
  } catch (error) {
    // Not there, or under something that is not a folder: nothing to be open (its opening reports it).
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

/**
 * Makes `folder` and its missing parents owner-only (0700) whatever the umask: mkdir's mode is
 * narrowed by the umask, so each folder it made is then set with chmod. An existing folder is left as it is.
 */
export async function makeOwnerOnlyFolder(folder: string): Promise<void> {
  const first = await fsp.mkdir(folder, { recursive: true, mode: OWNER_ONLY_FOLDER });
  if (first === undefined) return;
  for (let made = folder; ; made = path.dirname(made)) {
    await fsp.chmod(made, OWNER_ONLY_FOLDER);
    if (made === first) return;
  }
}
