// The chart above the queue: how many of the filtered alerts fall in each slice of event time
// (`GET /api/alerts/histogram` with the list's filters), drawn as SVG bars sized by attributes only
// (no inline style, so the page's Content-Security-Policy holds). A bar's title gives its slice and
// count on hover; clicking a bar narrows the queue to that slice.
import { useEffect, useState } from 'react';
import { api, query } from '../../api';
import { formatTime } from '../../format';
import { updateQuery } from '../../router';
import { apiFilter, eventBounds, type Filters } from './filters';

interface HistogramAnswer {
  buckets: { start: string; count: number }[];
  interval_seconds: number;
  start: string | null;
  end: string | null;
  total: number;
  total_exact: boolean;
}

const BUCKETS = 60;
const WIDTH = 600;
const HEIGHT = 60;

/** "5 minutes", "1 hour", "2 days". */
export function widthText(seconds: number): string {
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} seconds`;
}

export function AlertHistogram({ filters, reloads }: { filters: Filters; reloads: number }) {
  const [data, setData] = useState<HistogramAnswer | null>(null);
  const [failed, setFailed] = useState(false);
  const key = JSON.stringify({ ...apiFilter(filters), range: filters.range });

  useEffect(() => {
    let live = true;
    // A preset ends now: the chart covers it to the present, empty slices included.
    const bounds = eventBounds(filters);
    api
      .get<HistogramAnswer>('/api/alerts/histogram' + query({ ...apiFilter(filters), ...bounds, buckets: BUCKETS }))
      .then((answer) => {
        if (!live) return;
        setData(answer);
        setFailed(false);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [key, reloads]);

  if (failed) return <p className="muted small histogram-empty">The chart of event times could not be read.</p>;
  if (!data) return <div className="histogram-placeholder" aria-hidden="true" />;
  if (data.buckets.length === 0 || data.total === 0) return <p className="muted small histogram-empty">No alert in this range of event time.</p>;

  const max = Math.max(...data.buckets.map((b) => b.count), 1);
  const slot = WIDTH / data.buckets.length;
  const gap = slot > 4 ? 1 : 0;
  const zoom = (start: string) => {
    const from = Date.parse(start);
    updateQuery({ event_after: new Date(from - 1).toISOString(), event_before: new Date(from + data.interval_seconds * 1000).toISOString(), range: undefined, page: undefined }, { push: true });
  };
  const summary = `${data.total_exact ? '' : 'over '}${data.total.toLocaleString()} alerts by event time from ${formatTime(data.start)} to ${formatTime(data.end)}, ${widthText(data.interval_seconds)} per bar, at most ${max.toLocaleString()} in one bar`;

  return (
    <figure className="histogram">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={summary}>
        {data.buckets.map((b) => {
          const height = b.count === 0 ? 0 : Math.max(1.5, (b.count / max) * HEIGHT);
          const index = data.buckets.indexOf(b);
          return (
            <rect key={b.start} className={b.count ? 'bar' : 'bar empty'} x={index * slot} y={HEIGHT - height} width={Math.max(slot - gap, 0.5)} height={height} onClick={() => b.count && zoom(b.start)}>
              <title>{`${formatTime(b.start)} (+${widthText(data.interval_seconds)}): ${b.count.toLocaleString()} alert${b.count === 1 ? '' : 's'}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="histogram-axis muted small">
        <span>{formatTime(data.start)}</span>
        <span>
          {widthText(data.interval_seconds)} per bar · max {max.toLocaleString()}
        </span>
        <span>{formatTime(data.end)}</span>
      </figcaption>
    </figure>
  );
}
