// The queue's keys: j/k move the cursor (and the focus) between rows, Enter or o opens, x selects,
// / goes to the search box, ? opens the help. They work wherever the focus is after a click (a row,
// a checkbox, a button, a list just chosen from, the page itself), but not while typing in a text box.
import { useEffect } from 'react';

interface QueueKeys {
  rows: number;
  /** Moves the cursor by one row (+1 or -1), focusing the row. */
  move(by: 1 | -1): void;
  open(): void;
  toggle?(): void;
  help(): void;
  /** True while a dialog has the keys. */
  paused: boolean;
}

/** Elements that take typed keys themselves. A list (select) takes a letter to pick an option starting
 * with it; j and k still move the cursor from a list with no such option (status, severity, …). */
function typingIn(target: EventTarget | null, key: string): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLSelectElement) return (key !== 'j' && key !== 'k') || [...target.options].some((o) => o.text.trim().toLowerCase().startsWith(key));
  if (target.isContentEditable || target.closest('textarea, [contenteditable=""], [contenteditable="true"], dialog')) return true;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(target.type);
  return false;
}

export function useQueueKeys(keys: QueueKeys): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (keys.paused || event.metaKey || event.ctrlKey || event.altKey || typingIn(event.target, event.key)) return;
      const target = event.target as HTMLElement;
      if (event.key === '?') {
        event.preventDefault();
        keys.help();
        return;
      }
      if (event.key === '/') {
        const search = document.querySelector<HTMLInputElement>('form[role="search"] input[type="search"]');
        if (search) {
          event.preventDefault();
          search.focus();
        }
        return;
      }
      if (keys.rows === 0) return;
      if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        keys.move(event.key === 'j' ? 1 : -1);
      } else if ((event.key === 'Enter' && target.tagName === 'TR') || event.key === 'o') {
        event.preventDefault();
        keys.open();
      } else if (event.key === 'x' && keys.toggle) {
        event.preventDefault();
        keys.toggle();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });
}
