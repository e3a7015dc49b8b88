// Small display helpers shared by the pages: times, severity and status badges, labels.
import type { AlertStatus, Severity } from './types';

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function relativeTime(iso: string): string {
  const seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86400)}d ago`;
}

export const STATUS_LABELS: Record<AlertStatus, string> = {
  new: 'New',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
  false_positive: 'False positive',
};

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span className={`badge sev-${severity}`}>{severity}</span>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{STATUS_LABELS[status as AlertStatus] ?? status}</span>;
}

/** The moves the API allows from a status (interface spec §3): forward triage, and back to new from anywhere. */
export function allowedMoves(status: AlertStatus): AlertStatus[] {
  switch (status) {
    case 'new':
      return ['acknowledged'];
    case 'acknowledged':
      return ['resolved', 'false_positive', 'new'];
    default:
      return ['new'];
  }
}

/** The moves offered from a status: the table's, plus closing a new alert in one step (acknowledged first). */
export function offeredMoves(status: AlertStatus): AlertStatus[] {
  return status === 'new' ? ['acknowledged', 'resolved', 'false_positive'] : allowedMoves(status);
}

/** A close of a new alert goes through acknowledged: the request asks for that with `acknowledge_first`. */
export const closes = (status: AlertStatus) => status === 'resolved' || status === 'false_positive';

/** The button that makes a move. */
export const moveLabel = (status: AlertStatus) => (status === 'new' ? 'Reopen as new' : `Mark ${STATUS_LABELS[status].toLowerCase()}`);
