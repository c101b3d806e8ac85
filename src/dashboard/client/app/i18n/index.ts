import { en } from './en/index.js';

export type MessageKey = keyof typeof en;
type Values = Record<string, string | number>;

const locale = 'en';
const plural = new Intl.PluralRules(locale);

/** The catalogue's sentence for `key`, with `{name}` replaced by values[name]. */
export function t(key: MessageKey, values: Values = {}): string {
  return en[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** `key.one` or `key.other` (as the language's plural rules pick for `count`), with {count} filled. */
export function tn(key: string, count: number, values: Values = {}): string {
  const chosen = `${key}.${plural.select(count) === 'one' ? 'one' : 'other'}` as MessageKey;
  return t(chosen, { count: formatNumber(count), ...values });
}

const numbers = new Intl.NumberFormat(locale);
const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const days = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' });
const calendarDays = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });

export const formatNumber = (value: number): string => numbers.format(value);
export const formatDateTime = (iso: string | null | undefined): string => (iso ? dates.format(new Date(iso)) : t('time.never'));
export const formatDate = (iso: string | null | undefined): string => (iso ? days.format(new Date(iso)) : t('time.never'));
/** A calendar day the API names as `YYYY-MM-DD` (a UTC day): that day, wherever the browser is. */
export const formatDay = (day: string | undefined): string => (day ? calendarDays.format(new Date(`${day}T00:00:00Z`)) : '');

/** 1.2 MB, 340 kB */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** 1 h 4 min, 3 min 20 s, 12 s */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
