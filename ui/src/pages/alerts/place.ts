// The analyst's place in the queue, kept while the console stays open (in memory: a reload starts
// afresh, and the URL keeps the filters and page anyway): the list it was (its URL query), the row
// under the cursor and the selection. Going to an alert and back, by Back or by a link to /alerts,
// finds the same list, row and selection.
export interface QueuePlace {
  /** The queue's URL query ('' for the plain list). */
  search: string;
  /** The alert under the cursor. */
  cursorId: string | null;
  selected: string[];
  /** The selection stood for every alert the filters match. */
  matching: boolean;
}

let place: QueuePlace | null = null;

export function rememberPlace(next: QueuePlace): void {
  place = next;
}

/** The place kept for this list (same query), if any. */
export function placeFor(search: string): QueuePlace | null {
  return place && place.search === search ? place : null;
}

/** The query of the list last left, for a plain /alerts to return to (null: none, or the plain list). */
export function lastSearch(): string | null {
  return place && place.search ? place.search : null;
}
