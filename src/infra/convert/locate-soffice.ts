import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** SOFFICE_PATH's value that turns conversion off, as if LibreOffice were not installed. */
export const CONVERSION_OFF = 'none';

/** LibreOffice's `soffice`: SOFFICE_PATH when set, else the first on PATH, else undefined (not installed, or turned off). */
export function findSoffice(configured: string | undefined, searchPath: string | undefined): string | undefined {
  if (configured === CONVERSION_OFF) return undefined;
  if (configured) return configured;
  return (searchPath ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, 'soffice'))
    .find(isExecutable);
}

/** Whether `file` is an executable file (the doctor's check of SOFFICE_PATH). */
export { isExecutable as isExecutableFile };
