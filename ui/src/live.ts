// The live alert stream (Server-Sent Events on GET /api/alerts/stream, authenticated by the session
// cookie): one shared EventSource per page that wants it.
import { useEffect, useRef } from 'react';
import { sessionEnded } from './api';
import type { Alert } from './types';

export interface LiveHandlers {
  created?(alert: Alert): void;
  updated?(alert: Alert): void;
  reload?(): void;
}

export function useAlertStream(handlers: LiveHandlers): void {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/api/alerts/stream');
    const parse = (event: MessageEvent<string>): Alert | null => {
      try {
        return (JSON.parse(event.data) as { alert: Alert }).alert;
      } catch {
        return null;
      }
    };
    source.addEventListener('alert.created', (event) => {
      const alert = parse(event);
      if (alert) ref.current.created?.(alert);
    });
    source.addEventListener('alert.updated', (event) => {
      const alert = parse(event);
      if (alert) ref.current.updated?.(alert);
    });
    source.addEventListener('alerts.reload', () => ref.current.reload?.());
    // The session was revoked or expired: stop reconnecting (it would answer 401) and sign in again.
    source.addEventListener('session.ended', () => {
      source.close();
      sessionEnded();
    });
    return () => source.close();
  }, []);
}
