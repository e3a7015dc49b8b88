// A time in a queue row: short (relative within a day, else the local date and minute) so the row stays
// on one line; the exact ISO time on hover (title) and, for screen readers, the full local time.
import { formatTime, relativeTime } from '../../format';

/** "5m ago" within the last day, else "Mar 01 10:00" (this year) or "2024-03-01" (an earlier year). */
export function shortTime(iso: string, now = Date.now()): string {
  const date = new Date(iso);
  const ms = date.getTime();
  if (Number.isNaN(ms)) return iso;
  if (ms <= now + 60_000 && now - ms < 86_400_000) return relativeTime(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (date.getFullYear() !== new Date(now).getFullYear()) return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${date.toLocaleString(undefined, { month: 'short' })} ${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function QueueTime({ iso }: { iso: string | undefined }) {
  if (!iso) return null;
  return (
    <time dateTime={iso} title={iso}>
      <span aria-hidden="true">{shortTime(iso)}</span>
      <span className="visually-hidden">{formatTime(iso)}</span>
    </time>
  );
}
