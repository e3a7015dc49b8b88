// Row selection of a paged list (the alert queue, the rules list): select rows one by one, select or
// unselect every row of the page, clear after a bulk action, and drop what a reload no longer shows.
import { useCallback, useMemo, useState } from 'react';

export interface Selection {
  /** The selected ids, in the order they were selected. */
  ids: string[];
  size: number;
  has(id: string): boolean;
  /** Selects the row, or unselects it when it is selected. */
  toggle(id: string): void;
  /** True when the page has rows and every one of them is selected (the "select all" box). */
  allOnPage: boolean;
  /** The "select all" box: checked selects exactly the page's rows, unchecked clears the selection. */
  setPage(checked: boolean): void;
  clear(): void;
  /** Keeps only the ids still listed (after the list reloads). */
  keepOnly(listed: readonly string[]): void;
}

/** `pageIds`: the ids of the rows on the page shown now. */
export function useSelection(pageIds: readonly string[]): Selection {
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());

  const toggle = useCallback(
    (id: string) =>
      setSelected((current) => {
        const next = new Set(current);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const clear = useCallback(() => setSelected((current) => (current.size === 0 ? current : new Set())), []);
  const keepOnly = useCallback(
    (listed: readonly string[]) =>
      setSelected((current) => {
        const keep = new Set(listed);
        const next = new Set([...current].filter((id) => keep.has(id)));
        return next.size === current.size ? current : next;
      }),
    [],
  );
  const setPage = useCallback((checked: boolean) => setSelected(checked ? new Set(pageIds) : new Set()), [pageIds]);

  return useMemo(
    () => ({
      ids: [...selected],
      size: selected.size,
      has: (id: string) => selected.has(id),
      toggle,
      allOnPage: pageIds.length > 0 && pageIds.every((id) => selected.has(id)),
      setPage,
      clear,
      keepOnly,
    }),
    [selected, pageIds, toggle, setPage, clear, keepOnly],
  );
}
