// A long text followed at rest: a short text is returned as it is, a long one (a rule with thousands of
// values) only once it has not changed for a moment, so that highlighting and parsing it (tens of
// milliseconds each) run after a burst of typing instead of on every key.
import { useEffect, useState } from 'react';

/** Texts longer than this (characters) are followed at rest. */
export const LARGE_TEXT = 20_000;
const REST_MS = 150;

export function useSettledText(text: string): string {
  const [settled, setSettled] = useState(text);
  const large = text.length > LARGE_TEXT;
  useEffect(() => {
    if (!large) return;
    const timer = window.setTimeout(() => setSettled(text), REST_MS);
    return () => window.clearTimeout(timer);
  }, [text, large]);
  return large ? settled : text;
}
