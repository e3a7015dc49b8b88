// Row selection of a paged list (the alert queue, the rules list): select rows one by one, select or
// unselect every row of the page, widen a full page to everything the list's filters match, clear
// after a bulk action, and drop what a reload no longer shows.
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
  /** True when the selection stands for every row the filters match, on every page. */
  matching: boolean;
  /** Widens the selection to every matching row (or back to the rows picked); changing the rows picked ends it. */
  setMatching(on: boolean): void;
  /** Keeps only the ids still listed (after the list reloads). */
  keepOnly(listed: readonly string[]): void;
  /** Puts back a selection kept earlier (returning to the list). */
  restore(ids: readonly string[], matching: boolean): void;
}

/** `pageIds`: the ids of the rows on the page shown now. */
export function useSelection(pageIds: readonly string[]): Selection {
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const [matching, setMatching] = useState(false);

  const toggle = useCallback((id: string) => {
    setMatching(false);
    setSelected((current) => {
        const next = new Set(current);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      });
  }, []);
  const clear = useCallback(() => {
    setMatching(false);
    setSelected((current) => (current.size === 0 ? current : new Set()));
  }, []);
  const keepOnly = useCallback(
    (listed: readonly string[]) =>
      setSelected((current) => {
        const keep = new Set(listed);
        const next = new Set([...current].filter((id) => keep.has(id)));
        return next.size === current.size ? current : next;
      }),
    [],
  );
  const restore = useCallback((ids: readonly string[], on: boolean) => {
    setSelected(new Set(ids));
    setMatching(on);
  }, []);
  const setPage = useCallback(
    (checked: boolean) => {
      setMatching(false);
      setSelected(checked ? new Set(pageIds) : new Set());
    },
    [pageIds],
  );

  return useMemo(
    () => ({
      ids: [...selected],
      size: selected.size,
      has: (id: string) => selected.has(id),
      toggle,
      allOnPage: pageIds.length > 0 && pageIds.every((id) => selected.has(id)),
      setPage,
      clear,
      matching,
      setMatching,
      keepOnly,
      restore,
    }),
    [selected, matching, pageIds, toggle, setPage, clear, keepOnly, restore],
  );
}
