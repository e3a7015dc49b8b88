// The alerts around this one: those sharing its host, user or source IP whose events happened within an
// hour of its event, nearest first, each a link with its rule, severity, status, event time and what it shares.
import { formatTime, SeverityBadge, StatusBadge } from '../../format';
import { Link } from '../../router';
import type { RelatedAlert } from './types';

const SHARED_LABELS: Record<RelatedAlert['shared'][number], string> = { host: 'host', user: 'user', source_ip: 'source IP' };

export function RelatedAlerts({ related }: { related: RelatedAlert[] }) {
  if (related.length === 0) return <p className="muted">No other alert on this host, user or source IP within an hour of this event.</p>;
  return (
    <ul className="related-alerts" aria-label="Related alerts">
      {related.map((r) => (
        <li key={r.id}>
          <Link href={`/alerts/${r.id}`}>{r.rule_title}</Link> <SeverityBadge severity={r.severity} /> <StatusBadge status={r.status} />
          <div className="muted">
            <time dateTime={r.event_time}>{formatTime(r.event_time)}</time> · same {r.shared.map((s) => SHARED_LABELS[s]).join(', ')}
          </div>
        </li>
      ))}
    </ul>
  );
}
