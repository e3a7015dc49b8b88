// Previous / "Page n of m" / Next for a paged list; the caller decides where the page lives (state or URL).
export function ListPager({ page, pages, label, onPage }: { page: number; pages: number; label: string; onPage(page: number): void }) {
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages.toLocaleString()}
      </span>
      <button type="button" className="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
