// Unsaved work is not lost by leaving its page: while `unsaved` holds, moving to another page of the
// console asks first (window.confirm; moves within the same page, such as its query, do not ask), and
// reloading or closing the tab gets the browser's own question (beforeunload). The answer lets the
// page leave on purpose without a question (after a save that moves to the saved thing, or a delete).
import { useCallback, useEffect, useRef } from 'react';
import { addLeaveGuard } from '../router';

export function useLeaveGuard(unsaved: boolean, question: string): { leaveFreely(): void } {
  const state = useRef({ unsaved, question, free: false });
  state.current.unsaved = unsaved;
  state.current.question = question;
  // Leaving freely holds until the work is saved (or the next page's work is loaded).
  if (!unsaved) state.current.free = false;

  useEffect(() => {
    const pathOf = (href: string) => new URL(href, window.location.origin).pathname;
    const remove = addLeaveGuard((to, from) => {
      const s = state.current;
      if (!s.unsaved || s.free || pathOf(to) === pathOf(from)) return true;
      return window.confirm(s.question);
    });
    const ask = (event: BeforeUnloadEvent) => {
      if (!state.current.unsaved || state.current.free) return;
      event.preventDefault();
      // Older browsers show the question only when a value is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', ask);
    return () => {
      remove();
      window.removeEventListener('beforeunload', ask);
    };
  }, []);

  const leaveFreely = useCallback(() => {
    state.current.free = true;
  }, []);
  return { leaveFreely };
}
