import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import { lookup } from 'mime-types';
import { unprocessable } from '../../core/errors.js';

export const BLOCKED_EXTENSIONS = ['exe', 'dll', 'bat', 'cmd', 'msi', 'bin', 'iso', 'img', 'zip', 'rar', 'tar', 'gz'] as const;

/** Bytes file-type needs to recognise any format it knows. */
export const SNIFF_BYTES = 4100;

/** The last extension counts: "report.pdf.exe" is an exe. */
export function assertAllowedFileName(fileName: string): void {
  const extension = path.extname(fileName).slice(1).toLowerCase();
  if ((BLOCKED_EXTENSIONS as readonly string[]).includes(extension)) {
    throw unprocessable(`Files of type .${extension} are not accepted (blocked: ${BLOCKED_EXTENSIONS.join(', ')})`);
  }
}

/** Windows PE ("MZ"), ELF, and Mach-O (thin 32/64-bit either byte order, and fat) executables. */
export function isExecutable(head: Buffer): boolean {
  if (head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a) return true;
  if (head.length < 4) return false;
  const magic = head.readUInt32BE(0);
  if (magic === 0x7f454c46) return true;
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(magic)) return true;
  // 0xCAFEBABE is also a Java class file; a fat Mach-O follows it with a small architecture count.
  return magic === 0xcafebabe && head.length >= 8 && head.readUInt32BE(4) < 32;
}

export const executableRefused = () => unprocessable('Executable files are not accepted, whatever their name');

/** The media type from the content when it is recognisable, else from the name. */
export async function detectMime(head: Buffer, fileName: string): Promise<string> {
  const sniffed = await fileTypeFromBuffer(head);
  return sniffed?.mime ?? (lookup(fileName) || 'application/octet-stream');
}
