// Previous / next alert of the queue the analyst came from, without going back to it: two buttons and
// the queue's own keys (j next, k previous), the place on the page, and a link back to the same filters.
import { useEffect, useState } from 'react';
import { errorText } from '../../api';
import { Link, navigate } from '../../router';
import { neighboursOf, readListPosition, step } from './list-position';

export function ListStepper({ id }: { id: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const position = readListPosition();
  const around = neighboursOf(position, id);
  const queue = position?.queue ?? '/alerts';

  const go = async (direction: 1 | -1) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const to = await step(id, direction);
      if (to) navigate(`/alerts/${encodeURIComponent(to)}`);
      else setError(direction === 1 ? 'This is the last alert of the list.' : 'This is the first alert of the list.');
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (target.closest('input, textarea, select, [contenteditable]') || event.metaKey || event.ctrlKey || event.altKey) return;
      if (event.key === 'j' && around?.next) {
        event.preventDefault();
        void go(1);
      } else if (event.key === 'k' && around?.previous) {
        event.preventDefault();
        void go(-1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  return (
    <nav className="list-stepper" aria-label="Alert list">
      <Link href={queue}>← Alerts</Link>
      {around && (
        <>
          <button type="button" className="secondary" disabled={busy || !around.previous} onClick={() => void go(-1)} aria-keyshortcuts="k">
            ← Previous<span className="visually-hidden"> alert (k)</span>
          </button>
          <button type="button" className="secondary" disabled={busy || !around.next} onClick={() => void go(1)} aria-keyshortcuts="j">
            Next<span className="visually-hidden"> alert (j)</span> →
          </button>
          <span className="muted">
            {around.index + 1} of {around.count}
            {around.pages > 1 ? ` on page ${around.page} of ${around.pages}` : ''} · j / k
          </span>
        </>
      )}
      {error && (
        <span className="muted" role="status">
          {error}
        </span>
      )}
    </nav>
  );
}
