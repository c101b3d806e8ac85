import { badRequest } from '../../core/errors.js';
import { NEWEST_FIRST, type LinkOrder, type LinkTab, type SortPosition } from './links.repo.js';

/** The highest page number a list gives out or takes, in `?page=` and in its cursors. */
export const LIST_PAGE_MAX = 1_000_000;

/** Where the next page of a list starts: after `position`, and which page number that was when it was given out. */
export interface ListCursor {
  position: SortPosition;
  page: number;
}

const isNewestFirst = (order: LinkOrder) => order.sort === NEWEST_FIRST.sort && order.direction === NEWEST_FIRST.direction;

/**
 * Opaque to clients (base64url of JSON); bound to its tab and its order, so a cursor of one
 * is refused by another. Newest first keeps the four fields cursors always had (those given
 * out before the other orders existed still work); other orders add theirs.
 */
export function encodeListCursor(tab: LinkTab, order: LinkOrder, cursor: ListCursor): string {
  const fields: unknown[] = [tab, cursor.position.value, cursor.position.id, cursor.page];
  if (!isNewestFirst(order)) fields.push(order.sort, order.direction);
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

export function decodeListCursor(text: string, tab: LinkTab, order: LinkOrder): ListCursor {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    fields = undefined;
  }
  const expectedLength = isNewestFirst(order) ? 4 : 6;
  if (Array.isArray(fields) && fields.length === expectedLength) {
    const [cursorTab, value, id, page, sort = NEWEST_FIRST.sort, direction = NEWEST_FIRST.direction] = fields as unknown[];
    const sameList = cursorTab === tab && sort === order.sort && direction === order.direction;
    const validValue = order.sort === 'name' ? typeof value === 'string' : Number.isSafeInteger(value);
    const validId = typeof id === 'string' && /^[0-9A-Za-z]{1,64}$/.test(id);
    if (sameList && validValue && validId && Number.isSafeInteger(page) && (page as number) >= 1 && (page as number) <= LIST_PAGE_MAX)
      return { position: { value: value as string | number, id }, page: page as number };
  }
  throw badRequest(`cursor is not one given out by this list for tab=${tab}, sort=${order.sort}, order=${order.direction}`);
}
