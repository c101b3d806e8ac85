import fsp from 'node:fs/promises';

/** The names in `dir`, or undefined when it does not exist. */
export async function entriesOf(dir: string): Promise<string[] | undefined> {
  try {
    return await fsp.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
