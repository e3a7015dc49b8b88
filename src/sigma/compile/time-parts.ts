// The parts of a timestamp that the time modifiers (`minute`, `hour`, `day`, `week`, `month`, `year`)
// compare. Promises: the parts are the ones written in the value, never converted between time zones (the
// modifiers are "not designed to handle timezone or format conversions", so the same event gives the same
// answer on every machine): `2024-01-02 03:04:05.678` (Sysmon), `2024-01-02T03:04:05.6789012Z` (Windows
// event XML), ISO 8601 with an offset (`+02:00` is ignored) or a date alone; a number is a Unix time in
// seconds (milliseconds above 10^11), in UTC. Any other text (a bare number, a day-first date, words) is
// not a timestamp and has no parts. `week` is the ISO 8601 week of the written date.
import type { TimePart } from '../detection/value-expr.js';

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

interface Written {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function written(s: string): Written | undefined {
  const m = TIMESTAMP.exec(s.trim());
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => (m[i] === undefined ? 0 : Number(m[i])));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 60) return undefined;
  return { year, month, day, hour, minute };
}

function fromEpoch(v: number): Written | undefined {
  const d = new Date(v > 1e11 ? v : v * 1000);
  if (Number.isNaN(d.getTime())) return undefined;
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
}

function isoWeek(year: number, month: number, day: number): number {
  const t = new Date(Date.UTC(year, month - 1, day));
  const weekday = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - weekday); // the Thursday of the week decides its year
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  return Math.ceil(((t.getTime() - yearStart) / 86400000 + 1) / 7);
}

/** The time part of event value `v`, or undefined when `v` is not a timestamp. */
export function timePart(v: unknown, part: TimePart): number | undefined {
  const w = typeof v === 'string' ? written(v) : typeof v === 'number' ? fromEpoch(v) : undefined;
  if (w === undefined) return undefined;
  switch (part) {
    case 'minute':
      return w.minute;
    case 'hour':
      return w.hour;
    case 'day':
      return w.day;
    case 'week':
      return isoWeek(w.year, w.month, w.day);
    case 'month':
      return w.month;
    case 'year':
      return w.year;
  }
}
