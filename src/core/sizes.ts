/**
 * A size in bytes as people read it, in decimal units: `512 B`, `48 kB`, `3.5 MB`, `1.2 GB`. The
 * dashboard writes sizes the same way with its own `formatBytes` (it imports no server code), so a
 * sentence of the API reads the same beside the dashboard's figures.
 */
export function sizeLabel(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
