// The queue's time filter on the events' own time: a preset counted back from now, or an absolute
// range typed as local date-times (From / To) and kept in the URL as ISO times (`event_after`,
// `event_before`). Choosing one clears the other.
import { updateQuery } from '../../router';
import { RANGES, type Filters } from './filters';

/** An ISO time as the value of a datetime-local input (local time, to the minute). */
export function localInputValue(iso: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local value (local time) as an ISO time, or '' when empty or incomplete. */
export function isoOfLocal(value: string): string {
  if (!value) return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

export function TimeFilter({ filters }: { filters: Filters }) {
  const custom = !filters.range && (filters.event_after || filters.event_before);
  const setBound = (name: 'event_after' | 'event_before', value: string) => updateQuery({ [name]: isoOfLocal(value), range: undefined, page: undefined });
  return (
    <fieldset className="time-filter">
      <legend>Event time</legend>
      <select
        aria-label="Event time range"
        value={custom ? 'custom' : filters.range}
        onChange={(e) => {
          if (e.target.value !== 'custom') updateQuery({ range: e.target.value, event_after: undefined, event_before: undefined, page: undefined });
        }}
      >
        <option value="">Any time</option>
        {Object.entries(RANGES).map(([value, r]) => (
          <option key={value} value={value}>
            {r.label}
          </option>
        ))}
        {custom && <option value="custom">Custom range</option>}
      </select>
      <label>
        From
        <input type="datetime-local" value={localInputValue(filters.event_after)} onChange={(e) => setBound('event_after', e.target.value)} />
      </label>
      <label>
        To
        <input type="datetime-local" value={localInputValue(filters.event_before)} onChange={(e) => setBound('event_before', e.target.value)} />
      </label>
    </fieldset>
  );
}
