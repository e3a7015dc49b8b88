// The dashboard's shift figures (GET /api/stats `triage`): mean time to acknowledge and to close over the
// last 7 days, the age of the oldest open alert, open alerts per assignee and each busy rule's share of
// false positives among its closed alerts.
import type { Stats } from '../types';
import { Link } from '../router';

/** A duration in the largest sensible unit: 45 s, 12 min, 3.5 h, 2.1 days. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

export function ShiftFigures({ triage }: { triage: Stats['triage'] }) {
  const figures: [string, string][] = [
    ['Mean time to acknowledge (7 days)', duration(triage.mean_time_to_acknowledge_seconds)],
    ['Mean time to close (7 days)', duration(triage.mean_time_to_resolve_seconds)],
    ['Oldest open alert', duration(triage.oldest_open_alert_age_seconds)],
  ];
  return (
    <>
      <h2>Shift</h2>
      <div className="figures">
        {figures.map(([label, value]) => (
          <div key={label} className="figure">
            <div className="figure-value">{value}</div>
            <div className="figure-label">{label}</div>
          </div>
        ))}
      </div>
      <div className="columns">
        <table>
          <caption>Open alerts per assignee</caption>
          <thead>
            <tr>
              <th scope="col">Assignee</th>
              <th scope="col">Open</th>
            </tr>
          </thead>
          <tbody>
            {triage.open_by_assignee.map((o) => (
              <tr key={o.assignee ?? 'none'}>
                <td>
                  <Link href={`/alerts?assignee=${o.assignee ?? 'none'}`}>{o.assignee_name ?? 'Unassigned'}</Link>
                </td>
                <td>{o.count.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table>
          <caption>False positives among closed alerts (last 30 days)</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Closed</th>
              <th scope="col">False positives</th>
            </tr>
          </thead>
          <tbody>
            {triage.rule_precision.map((r) => (
              <tr key={r.rule_id}>
                <td>
                  <Link href={`/alerts?rule_id=${r.rule_id}`}>{r.rule_title}</Link>
                </td>
                <td>{r.closed.toLocaleString()}</td>
                <td>{`${r.false_positives.toLocaleString()} (${Math.round(r.false_positive_rate * 100)} %)`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {triage.open_by_assignee.length === 0 && <p className="muted">No open alerts.</p>}
    </>
  );
}
