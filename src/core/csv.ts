export type CsvCell = string | number | null;

// A spreadsheet runs a cell starting with one of these as a formula (CSV injection); some trim
// leading spaces on import first, so spaces before one count too.
const FORMULA_START = /^[\t\r]|^\s*[=+\-@]/;

function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  // Quoted with a semicolon or tab too: a spreadsheet set to split on those would start a new cell there, which could be a formula.
  return /[",;\t\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Lines of RFC 4180 text (each ended by CRLF, quoted where needed), with text cells made inert for spreadsheets. */
function csvLines(rows: readonly (readonly CsvCell[])[]): string {
  return rows.map((row) => row.map(csvCell).join(',') + '\r\n').join('');
}

/**
 * A CSV read a page at a time while it is sent: the header line, then the lines of each page
 * `readPage` gives (up to `pageSize` rows, after the cursor `cursorAfter` made of the previous
 * page's last row), until a page comes back short.
 */
export async function* csvByPages<Row, Cursor>(options: {
  header: readonly string[];
  pageSize: number;
  readPage: (after: Cursor | undefined) => Promise<Row[]>;
  cursorAfter: (last: Row) => Cursor;
  cells: (row: Row) => readonly CsvCell[];
}): AsyncGenerator<string> {
  yield csvLines([options.header]);
  let after: Cursor | undefined;
  for (;;) {
    const page = await options.readPage(after);
    if (page.length > 0) yield csvLines(page.map(options.cells));
    if (page.length < options.pageSize) return;
    after = options.cursorAfter(page.at(-1)!);
  }
}
