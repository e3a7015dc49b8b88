// One row of the alert queue, one line high: the chosen columns, long values cut with an ellipsis and
// given whole on hover; host, user, source IP and rule cells offer a filter on their value (a small
// button, or Alt+click on the cell) while the rule's link still opens the alert.
import type { MouseEvent, ReactNode, Ref } from 'react';
import { formatTime, SeverityBadge, StatusBadge } from '../../format';
import { Link } from '../../router';
import type { Alert } from '../../types';
import type { ColumnKey } from './columns';
import { QueueTime } from './QueueTime';

/** A filter a cell offers: the URL parameters to set, and how to name it. */
export interface Pivot {
  changes: Record<string, string>;
  label: string;
}

interface AlertRowProps {
  alert: Alert;
  columns: readonly ColumnKey[];
  triage: boolean;
  isCursor: boolean;
  selected: boolean;
  rowRef: Ref<HTMLTableRowElement>;
  onFocus(): void;
  onOpen(): void;
  onToggle(): void;
  onPivot(pivot: Pivot): void;
}

function Text({ value }: { value: string | undefined }) {
  return value ? (
    <span className="cell-text" title={value}>
      {value}
    </span>
  ) : null;
}

/** A cell whose value can become a filter. */
function PivotCell({ value, pivot, onPivot, className, children }: { value: string | undefined; pivot: Pivot | null; onPivot(p: Pivot): void; className?: string; children?: ReactNode }) {
  const altClick = (event: MouseEvent) => {
    if (!event.altKey || !pivot) return;
    event.preventDefault();
    onPivot(pivot);
  };
  return (
    <td className={className} onClick={altClick}>
      <span className="pivot-cell">
        {children ?? <Text value={value} />}
        {pivot && (
          <button type="button" className="pivot" title={pivot.label} aria-label={pivot.label} onClick={() => onPivot(pivot)}>
            <span aria-hidden="true">⊕</span>
          </button>
        )}
      </span>
    </td>
  );
}

export function AlertRow({ alert, columns, triage, isCursor, selected, rowRef, onFocus, onOpen, onToggle, onPivot }: AlertRowProps) {
  const entity = (key: 'host' | 'user' | 'source_ip', name: string) => {
    const value = alert[key];
    return <PivotCell key={key} className={key === 'source_ip' ? 'mono' : undefined} value={value} pivot={value ? { changes: { [key]: value }, label: `Only alerts with ${name} ${value}` } : null} onPivot={onPivot} />;
  };
  const cell = (key: ColumnKey) => {
    switch (key) {
      case 'severity':
        return (
          <td key={key}>
            <SeverityBadge severity={alert.severity} />
          </td>
        );
      case 'event_time':
        return (
          <td key={key}>
            <QueueTime iso={alert.event_time} />
          </td>
        );
      case 'created_at':
        return (
          <td key={key}>
            <QueueTime iso={alert.created_at} />
          </td>
        );
      case 'rule_title':
        return (
          <PivotCell key={key} className="rule-cell" value={alert.rule_title} pivot={{ changes: { rule_id: alert.rule_id }, label: `Only alerts of the rule ${alert.rule_title}` }} onPivot={onPivot}>
            <span className="cell-text" title={alert.rule_title + ((alert.occurrences ?? 1) > 1 && alert.last_seen_at ? ` · ${alert.occurrences} matches, last ${formatTime(alert.last_seen_at)}` : '')}>
              <Link href={`/alerts/${alert.id}`}>{alert.rule_title}</Link>
              {(alert.occurrences ?? 1) > 1 && alert.last_seen_at && (
                <span className="muted">
                  {' '}
                  · {alert.occurrences} matches, last <QueueTime iso={alert.last_seen_at} />
                </span>
              )}
            </span>
          </PivotCell>
        );
      case 'status':
        return (
          <td key={key}>
            <StatusBadge status={alert.status} />
          </td>
        );
      case 'assignee':
        return <td key={key}>{alert.assignee_name ? <Text value={alert.assignee_name} /> : <span className="muted">{alert.assignee ? 'Assigned' : 'Unassigned'}</span>}</td>;
      case 'host':
        return entity('host', 'host');
      case 'user':
        return entity('user', 'user');
      case 'source_ip':
        return entity('source_ip', 'source IP');
      case 'index_pattern':
        return (
          <PivotCell key={key} value={alert.index_pattern} pivot={alert.index_pattern ? { changes: { index_pattern: alert.index_pattern }, label: `Only alerts of the index pattern ${alert.index_pattern}` } : null} onPivot={onPivot} />
        );
      case 'risk':
        return <td key={key}>{alert.enrichment ? `${alert.enrichment.risk_score} (${alert.enrichment.risk_level})` : ''}</td>;
    }
  };

  return (
    <tr
      ref={rowRef}
      tabIndex={isCursor ? 0 : -1}
      className={`${isCursor ? 'cursor' : ''} ${selected ? 'selected' : ''}`}
      onFocus={onFocus}
      onDoubleClick={onOpen}
      data-alert-id={alert.id}
    >
      {triage && (
        <td className="check">
          <input type="checkbox" aria-label={`Select alert ${alert.rule_title} at ${formatTime(alert.created_at)}`} checked={selected} onChange={onToggle} />
        </td>
      )}
      {columns.map(cell)}
    </tr>
  );
}
