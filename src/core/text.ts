import { unprocessable } from './errors.js';

/**
 * Characters that reorder what follows them on screen (U+202E shows "Invoice\u202Efdp.js" as
 * "Invoicesj.pdf"), and the byte-order mark: no name a person types needs them, and they make
 * one read as something else.
 */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * A name as typed on one line, kept as a record shows it: reordering and control characters
 * dropped, runs of white space made one space. Joiners stay (Persian and Indic names use them).
 */
export const plainLine = (text: string) =>
  text
    .replace(BIDI_CONTROLS, '')
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Characters that show nothing on their own: a name made only of these is no name. */
const INVISIBLE = /[\s\p{Default_Ignorable_Code_Point}]/gu;

/**
 * The name of a record as typed (a data room, portal, template, agreement): kept as `plainLine`
 * keeps it, since it reaches visitors' pages, mails and chat messages; 422 naming `what` when
 * nothing of it shows, or it is longer than `max`.
 */
export function recordName(typed: string, what: string, max = 200): string {
  const name = plainLine(typed);
  if (name.replace(INVISIBLE, '') === '' || name.length > max) throw unprocessable(`${what} must be 1 to ${max} characters, not only spaces`);
  return name;
}
