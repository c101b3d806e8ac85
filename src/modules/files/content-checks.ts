import path from 'node:path';
import { lookup } from 'mime-types';
import { unprocessable } from '../../core/errors.js';
import { BIDI_CONTROLS } from '../../core/text.js';

export const BLOCKED_EXTENSIONS = [
  'exe',
  'dll',
  'bat',
  'cmd',
  'com',
  'msi',
  'msp',
  'scr',
  'pif',
  'cpl',
  'ps1',
  'vbs',
  'vbe',
  'js',
  'jse',
  'wsf',
  'wsh',
  'wsc',
  'sct',
  'hta',
  'msc',
  'chm',
  'inf',
  'scf',
  'url',
  'xll',
  'appref-ms',
  'settingcontent-ms',
  'library-ms',
  'application',
  'appx',
  'msix',
  'jar',
  'lnk',
  'reg',
  'bin',
  'iso',
  'img',
  'vhd',
  'vhdx',
  'zip',
  'rar',
  '7z',
  'cab',
  'tar',
  'gz',
] as const;

/** The most a stored file name may take, in bytes of UTF-8 (what common file systems allow). */
export const MAX_FILE_NAME_BYTES = 255;
const segmenter = new Intl.Segmenter();

/**
 * The longest start of `text` that fits in `maxBytes` of UTF-8, cut between characters (grapheme
 * clusters), or between code points inside the first when even it does not fit.
 */
function truncateUtf8(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const { segment } of segmenter.segment(text)) {
    bytes += Buffer.byteLength(segment);
    if (bytes > maxBytes) return out === '' ? truncateCodePoints(segment, maxBytes) : out;
    out += segment;
  }
  return out;
}

function truncateCodePoints(text: string, maxBytes: number): string {
  let out = '';
  for (const codePoint of text) {
    if (Buffer.byteLength(out + codePoint) > maxBytes) break;
    out += codePoint;
  }
  return out;
}

/**
 * The name a file is stored under, as Windows would save it: no folders, no control
 * characters (nor bidirectional ones, nor line and paragraph separators), no trailing dots or
 * spaces ("x.bat." is x.bat), at most 255 bytes of UTF-8 with the extension kept.
 */
export function storedFileName(sent: string): string {
  const base = sent.slice(Math.max(sent.lastIndexOf('/'), sent.lastIndexOf('\\')) + 1);
  const name =
    base
      .replace(/[\p{Cc}\u2028\u2029]/gu, '')
      .replace(BIDI_CONTROLS, '')
      .replace(/[. ]+$/, '')
      .trim() || 'file';
  if (Buffer.byteLength(name) <= MAX_FILE_NAME_BYTES) return name;
  const extension = path.extname(name);
  const kept = Buffer.byteLength(extension) <= 32 ? extension : '';
  return truncateUtf8(name.slice(0, name.length - kept.length), MAX_FILE_NAME_BYTES - Buffer.byteLength(kept)) + kept;
}

/** Bytes file-type needs to recognise any format it knows. */
export const SNIFF_BYTES = 4100;

/** The last extension of the stored name counts: "report.pdf.exe" is an exe. */
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
  // file-type and its tokenizers (about 30 modules) load with the first upload, not at start.
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(head);
  return sniffed?.mime ?? (lookup(fileName) || 'application/octet-stream');
}
