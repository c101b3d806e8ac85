import { MAX_IMAGE_UPLOAD_BYTES, reencodeImage } from '../files/images.js';

export const MAX_LOGO_BYTES = MAX_IMAGE_UPLOAD_BYTES;

/** The logo as stored: a fresh PNG of at most 1024 px a side (see `reencodeImage`). */
export const reencodeLogo = (upload: Buffer): Promise<Buffer> => reencodeImage(upload, 'logo', 1024);
