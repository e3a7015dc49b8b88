// The Server-Sent Events wire format of the alert stream: one message per change (`id` = the change's
// sequence number, so a browser's Last-Event-ID names where to resume), control events without an id,
// comment lines as heartbeats, and the reconnection delay.
import type { AlertChange } from './change-store.js';

/** How long a browser waits before reconnecting after the stream ends. */
export const RETRY_MS = 3000;

/** Event names of the stream. */
export const STREAM_EVENTS = {
  created: 'alert.created',
  updated: 'alert.updated',
  /** Changes were missed and cannot all be replayed: reload the alert list, then keep following. */
  reload: 'alerts.reload',
  /** The session was revoked or expired (or the user disabled): the stream ends. */
  sessionEnded: 'session.ended',
} as const;

/** One event; `data` is a single line of JSON (JSON.stringify never emits a raw line break). */
export function sseEvent(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Each change is delivered to every open stream: it is serialised once. */
const serialised = new WeakMap<AlertChange, string>();

export function changeEvent(change: AlertChange): string {
  let text = serialised.get(change);
  if (text === undefined) {
    text = sseEvent(STREAM_EVENTS[change.kind], { seq: change.seq, kind: change.kind, alert: change.alert }, change.seq);
    serialised.set(change, text);
  }
  return text;
}

/** A comment line: ignored by clients, keeps proxies from closing an idle connection. */
export const HEARTBEAT = ': ping\n\n';

export const retryField = (ms: number = RETRY_MS) => `retry: ${ms}\n\n`;
