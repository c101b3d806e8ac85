/** Reading a page's watermark back with Debian's tesseract-ocr, as someone squinting at a leaked screenshot would. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { WATERMARK_ANGLE_DEGREES } from '../../src/modules/documents/watermark/stamp.js';

/** Whether this machine has tesseract (tests that read a mark back are skipped without it). */
export const HAS_TESSERACT = await promisify(execFile)('tesseract', ['--version']).then(
  () => true,
  () => false,
);

/**
 * The text tesseract reads on a stamped page, turned level and cut to black on white. The mark's
 * separators (middle dots) come back as "-", ":" or "«"; match the parts that matter.
 */
export async function readMark(stampedImage: Buffer): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'linkvault-ocr-'));
  try {
    const file = path.join(dir, 'page.png');
    await writeFile(
      file,
      await sharp(stampedImage).rotate(WATERMARK_ANGLE_DEGREES, { background: '#fff' }).greyscale().threshold(240).png().toBuffer(),
    );
    const { stdout } = await promisify(execFile)('tesseract', [file, '-'], { timeout: 60_000 });
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
