import { badRequest } from '../../core/errors.js';
import type { LinkPosition, LinkTab } from './links.repo.js';

/** Where the next page of a list starts: after `position`, and which page number that was when it was given out. */
export interface ListCursor {
  position: LinkPosition;
  page: number;
}

/** Opaque to clients (base64url of JSON); bound to its tab, so a cursor of one tab is refused by the other. */
export function encodeListCursor(tab: LinkTab, cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([tab, cursor.position.createdAt, cursor.position.id, cursor.page])).toString('base64url');
}

export function decodeListCursor(text: string, tab: LinkTab): ListCursor {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    fields = undefined;
  }
  if (Array.isArray(fields) && fields.length === 4) {
    const [cursorTab, createdAt, id, page] = fields as unknown[];
    const valid = cursorTab === tab && Number.isSafeInteger(createdAt) && typeof id === 'string' && /^[0-9A-Za-z]{1,64}$/.test(id);
    if (valid && Number.isSafeInteger(page) && (page as number) >= 1)
      return { position: { createdAt: createdAt as number, id }, page: page as number };
  }
  throw badRequest(`cursor is not one given out by this list for tab=${tab}`);
}
