// Saving part of an index pattern's settings (PATCH /api/index_patterns/{id}): the outcome line, the
// API's validation errors as "field: message" lines, and the saved pattern handed back to the page.
import { useState } from 'react';
import { ApiError, api, errorText } from '../../api';
import type { Outcome } from './Message';
import type { PatternSettings } from './types';

export function usePatternSave(pattern: PatternSettings, onSaved: (p: PatternSettings) => void) {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [errors, setErrors] = useState<string[]>([]);

  /** Sends `changes`; answers the saved pattern, or undefined when the API refused them (shown). */
  const save = async (changes: Record<string, unknown>, done: string): Promise<PatternSettings | undefined> => {
    setErrors([]);
    try {
      const updated = await api.patch<PatternSettings>(`/api/index_patterns/${encodeURIComponent(pattern.id)}`, changes);
      onSaved(updated);
      setOutcome({ text: done });
      return updated;
    } catch (e) {
      setOutcome({ text: errorText(e), error: true });
      if (e instanceof ApiError) setErrors(e.errors.map((err) => `${err.field.replace(/^body\./, '')}: ${err.message}`));
      return undefined;
    }
  };

  const reset = () => {
    setOutcome(null);
    setErrors([]);
  };

  return { outcome, errors, save, reset, clearOutcome: () => setOutcome(null) };
}
