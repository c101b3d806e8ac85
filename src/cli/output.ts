/** What the operator commands (backup, restore) print: progress on stdout, the unmissable on stderr. */

export const say = (line: string) => console.log(line);

/** A loud block on stderr: the one thing about a backup or a restore that an operator must not miss. */
export function shout(lines: string[]): void {
  const bar = '!'.repeat(78);
  console.error([bar, ...lines.map((line) => `!! ${line}`), bar].join('\n'));
}
