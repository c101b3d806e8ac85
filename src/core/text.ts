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
