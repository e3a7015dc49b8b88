// The dashboard: headline figures and simple SVG charts of GET /api/stats (alerts per hour over 24 h,
// the ingest rate (events received per hour), by severity, by status, top rules) and the shift figures, read again at most
// every two seconds while alerts arrive or change. Charts are drawn with SVG attributes and CSS classes only.
import { useEffect, useRef, useState } from 'react';
import { api, errorText } from '../api';
import { STATUS_LABELS } from '../format';
import { useAlertStream } from '../live';
import { Link } from '../router';
import { ALERT_STATUSES, SEVERITIES, type Stats } from '../types';
import { ShiftFigures } from './ShiftFigures';

/**
 * How long the figures wait after an alert arrives or changes before they are read again: a burst of
 * thousands of alerts (one ingest request) is one refresh, not one per alert.
 */
const REFRESH_AFTER_MS = 2000;

/** A compact count for an axis label: 1234 → 1.2k, 2500000 → 2.5M. */
function compact(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 0 : 1)}M`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(n >= 10_000 ? 0 : 1)}k`;
  return String(n);
}

/** Hourly counts over 24 hours as bars; `what` names what is counted ("Alerts", "Events received"). */
function HourlyChart({ points, what, className = '' }: { points: { time: string; count: number }[]; what: string; className?: string }) {
  const width = 720;
  const height = 180;
  const pad = 36;
  const max = Math.max(1, ...points.map((p) => p.count));
  const total = points.reduce((sum, p) => sum + p.count, 0);
  const barWidth = (width - pad * 2) / Math.max(points.length, 1);
  return (
    <svg
      viewBox={`0 0 ${width} ${height}`}
      className={`chart ${className}`.trim()}
      role="img"
      aria-label={`${what} per hour over the last 24 hours: ${total.toLocaleString()} in all, peak ${max.toLocaleString()} in an hour`}
    >
      <line x1={pad} y1={height - pad} x2={width - pad} y2={height - pad} className="axis" />
      <text x={pad - 4} y={pad} className="axis-label" textAnchor="end">
        {compact(max)}
      </text>
      <text x={pad - 4} y={height - pad} className="axis-label" textAnchor="end">
        0
      </text>
      {points.map((p, i) => {
        const h = ((height - pad * 2) * p.count) / max;
        const hour = new Date(p.time).getHours();
        return (
          <g key={p.time}>
            <rect x={pad + i * barWidth + 2} y={height - pad - h} width={Math.max(barWidth - 4, 1)} height={h} className="bar">
              <title>{`${new Date(p.time).toLocaleString()}: ${p.count.toLocaleString()}`}</title>
            </rect>
            {i % 3 === 0 && (
              <text x={pad + i * barWidth + barWidth / 2} y={height - pad + 14} className="axis-label" textAnchor="middle">
                {`${String(hour).padStart(2, '0')}h`}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

function Bars({ label, rows }: { label: string; rows: { key: string; label: string; value: number; className?: string; href?: string }[] }) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return (
    <table className="bars">
      <caption>{label}</caption>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <th scope="row">{r.href ? <Link href={r.href}>{r.label}</Link> : r.label}</th>
            <td className="bar-cell">
              <svg viewBox="0 0 100 10" preserveAspectRatio="none" className="hbar" aria-hidden="true">
                <rect x="0" y="0" height="10" width={(100 * r.value) / max} className={r.className ?? 'bar'} />
              </svg>
            </td>
            <td className="num">{r.value.toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function DashboardPage() {
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let cancelled = false;
    api
      .get<Stats>('/api/stats')
      .then((s) => {
        if (cancelled) return;
        setStats(s);
        setError(null);
      })
      .catch((e: unknown) => !cancelled && setError(errorText(e)));
    return () => {
      cancelled = true;
    };
  }, [tick]);

  const refreshTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (refreshTimer.current) clearTimeout(refreshTimer.current);
    },
    [],
  );
  const refreshSoon = () => {
    if (refreshTimer.current) return;
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = null;
      setTick((n) => n + 1);
    }, REFRESH_AFTER_MS);
  };
  useAlertStream({ created: refreshSoon, updated: refreshSoon, reload: refreshSoon });

  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (!stats) return <p role="status">Loading…</p>;

  const figures: [string, number, string?][] = [
    ['Open alerts', stats.alerts.open, '/alerts?status=new'],
    ['Alerts, last 24 h', stats.alerts.last_24h, '/alerts?range=24h'],
    ['Alerts in total', stats.alerts.total, '/alerts'],
    ['Deployed rules', stats.rules.deployed, '/rules?status=deployed'],
    ['Events, last 24 h', stats.ingest.events_last_24h],
    ['Events in total', stats.ingest.events_total],
  ];

  return (
    <section aria-labelledby="dash-title">
      <h1 id="dash-title">Dashboard</h1>
      <div className="figures">
        {figures.map(([label, value, href]) => (
          <div key={label} className="figure">
            <div className="figure-value">{value.toLocaleString()}</div>
            <div className="figure-label">{href ? <Link href={href}>{label}</Link> : label}</div>
          </div>
        ))}
      </div>
      <h2>Alerts per hour (last 24 hours)</h2>
      <HourlyChart points={stats.timeline} what="Alerts" />
      <h2>Ingest rate: events received per hour (last 24 hours)</h2>
      <HourlyChart points={stats.ingest.timeline} what="Events received" className="ingest-chart" />
      <div className="columns">
        <Bars
          label="By severity"
          rows={SEVERITIES.map((s) => ({ key: s, label: s, value: stats.alerts.by_severity[s] ?? 0, className: `bar sev-fill-${s}`, href: `/alerts?severity=${s}` }))}
        />
        <Bars label="By status" rows={ALERT_STATUSES.map((s) => ({ key: s, label: STATUS_LABELS[s], value: stats.alerts.by_status[s] ?? 0, href: `/alerts?status=${s}` }))} />
      </div>
      <Bars label="Top rules" rows={stats.top_rules.map((r) => ({ key: r.rule_id, label: r.rule_title, value: r.count, href: `/alerts?rule_id=${r.rule_id}` }))} />
      <ShiftFigures triage={stats.triage} />
    </section>
  );
}
