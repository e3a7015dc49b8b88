// Where an alert sits in the queue the analyst came from: the queue records the ids of the page it shows
// with the list request that gave them (filters, sort, page), so the detail page can step to the previous
// or next alert and, past either end of the page, fetch the neighbouring page with the same filters and
// sort. Kept in sessionStorage: one position per browser tab, nothing leaves the browser.
import { api, type Page } from '../../api';

const KEY = 'vigil.alert-list-position';

export interface ListPosition {
  /** The list request of the page (GET /api/alerts?…&page=N). */
  path: string;
  /** The queue's own URL, to go back to the same filters and page. */
  queue: string;
  ids: string[];
  page: number;
  pages: number;
}

/** Called by the queue each time it shows a page of alerts. */
export function recordListPosition(path: string, page: Page<{ id: string }>): void {
  save({ path, queue: window.location.pathname + window.location.search, ids: page.items.map((a) => a.id), page: page.page, pages: page.pages });
}

function save(position: ListPosition): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(position));
  } catch {
    // Storage full or disabled: stepping through the list is simply not offered.
  }
}

const isPosition = (v: unknown): v is ListPosition => {
  const p = v as ListPosition | null;
  return !!p && typeof p.path === 'string' && p.path.startsWith('/api/alerts') && typeof p.queue === 'string' && Array.isArray(p.ids) && p.ids.every((id) => typeof id === 'string') && Number.isInteger(p.page) && Number.isInteger(p.pages);
};

/** The recorded position, or null when there is none (or it cannot be read). */
export function readListPosition(): ListPosition | null {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    return isPosition(value) ? value : null;
  } catch {
    return null;
  }
}

export interface Neighbours {
  /** 0-based place of the alert on its page. */
  index: number;
  count: number;
  page: number;
  pages: number;
  previous: boolean;
  next: boolean;
}

/** Whether there is an alert before and after `id` on the recorded list; null when `id` is not on it. */
export function neighboursOf(position: ListPosition | null, id: string): Neighbours | null {
  if (!position) return null;
  const at = position.ids.indexOf(id);
  if (at < 0) return null;
  return { index: at, count: position.ids.length, page: position.page, pages: position.pages, previous: at > 0 || position.page > 1, next: at < position.ids.length - 1 || position.page < position.pages };
}

function withPage(path: string, page: number): string {
  const url = new URL(path, window.location.origin);
  url.searchParams.set('page', String(page));
  return url.pathname + url.search;
}

/** The id of the alert one step from `id` (fetching the neighbouring page when the step leaves this one), or null. */
export async function step(id: string, direction: 1 | -1): Promise<string | null> {
  const position = readListPosition();
  if (!position) return null;
  const at = position.ids.indexOf(id);
  if (at < 0) return null;
  const inPage = position.ids[at + direction];
  if (inPage) return inPage;
  const page = position.page + direction;
  if (page < 1 || page > position.pages) return null;
  const path = withPage(position.path, page);
  const answer = await api.get<Page<{ id: string }>>(path);
  if (answer.items.length === 0) return null;
  const queue = new URL(position.queue, window.location.origin);
  if (answer.page > 1) queue.searchParams.set('page', String(answer.page));
  else queue.searchParams.delete('page');
  save({ path, queue: queue.pathname + queue.search, ids: answer.items.map((a) => a.id), page: answer.page, pages: answer.pages });
  return direction === 1 ? answer.items[0].id : answer.items[answer.items.length - 1].id;
}
