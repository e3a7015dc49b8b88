// Page navigation for long server-side lists: first, previous, a page number to go to, next and last, all
// through the `page` query parameter of the URL (each move is a history entry, so Back returns).
import { useState, type FormEvent } from 'react';
import { updateQuery } from '../router';

export function PageNav({ page, pages, label = 'Pages' }: { page: number; pages: number; label?: string }) {
  const [typed, setTyped] = useState(String(page));
  // The box follows the page shown (set while rendering, so it never shows the previous page's number).
  const [shownFor, setShownFor] = useState(page);
  if (shownFor !== page) {
    setShownFor(page);
    setTyped(String(page));
  }
  const go = (to: number) => updateQuery({ page: to <= 1 ? undefined : String(Math.min(Math.max(to, 1), pages)) }, { push: true });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const to = Number(typed);
    if (Number.isInteger(to) && to >= 1) go(to);
  };
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => go(1)}>
        First
      </button>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => go(Math.min(page - 1, pages))}>
        Previous
      </button>
      <form onSubmit={submit} className="pager-jump">
        <label>
          Page
          <input type="number" inputMode="numeric" min={1} max={pages} value={typed} onChange={(e) => setTyped(e.target.value)} />
        </label>
        <span>of {pages.toLocaleString()}</span>
        <button type="submit" className="secondary">
          Go
        </button>
      </form>
      <button type="button" className="secondary" disabled={page >= pages} onClick={() => go(page + 1)}>
        Next
      </button>
      <button type="button" className="secondary" disabled={page === pages} onClick={() => go(pages)}>
        Last
      </button>
    </nav>
  );
}
