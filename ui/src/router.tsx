// A small client-side router on the History API: the current path and query, navigation, and links
// that keep the browser's own behaviour (new tab, copy link) while staying in the page. A page with
// unsaved work can hold a leave guard: every move inside the console (a link, navigate(), Back and
// Forward) asks it first, and a refused Back or Forward is undone.
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const listeners = new Set<() => void>();

/** Answers whether the console may move from `from` to `to` (paths with their queries). */
export type LeaveGuard = (to: string, from: string) => boolean;
const guards = new Set<LeaveGuard>();

/** Adds a guard; answers the function that removes it. */
export function addLeaveGuard(guard: LeaveGuard): () => void {
  guards.add(guard);
  return () => guards.delete(guard);
}

const mayLeave = (to: string, from: string) => [...guards].every((guard) => guard(to, from));

const snapshot = () => window.location.pathname + window.location.search;

/** The location shown, so that a refused Back or Forward can be undone. */
let shown = typeof window === 'undefined' ? '' : snapshot();

function notify(): void {
  shown = snapshot();
  for (const listener of listeners) listener();
}

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    const to = snapshot();
    if (to !== shown && !mayLeave(to, shown)) {
      // The browser has moved already: put the page's own location back on top.
      window.history.pushState(null, '', shown);
      return;
    }
    notify();
  });
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Moves to `to`, unless a leave guard refuses; `force` skips the guards (signing out). */
export function navigate(to: string, options: { replace?: boolean; force?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (!options.force && !mayLeave(to, snapshot())) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
}

export interface Location {
  path: string;
  params: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  return { path: url.pathname, params: url.searchParams };
}

/** Sets (or, when empty, removes) query parameters of the current URL without a new history entry. */
export function updateQuery(changes: Record<string, string | undefined>, options: { push?: boolean } = {}): void {
  const params = new URLSearchParams(window.location.search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === '') params.delete(key);
    else params.set(key, value);
  }
  const text = params.toString();
  navigate(window.location.pathname + (text ? `?${text}` : ''), { replace: !options.push });
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
