// The preview of an exception being written: once its field, operator and value have rested for a
// moment, asks the server what it would cover (open alerts, events of the last 7 days). An answer to an
// older draft is dropped; a draft the server refuses shows no preview, only why.
import { useEffect, useState } from 'react';
import { api, errorText } from '../../api';
import type { ExceptionPreview } from '../../types';

export interface ExceptionDraft {
  field: string;
  operator: string;
  value: string | string[];
}

const REST_MS = 400;

const complete = (d: ExceptionDraft) => d.field.trim() !== '' && (Array.isArray(d.value) ? d.value.length > 0 : d.value !== '');

export function useExceptionPreview(ruleId: string, draft: ExceptionDraft): { preview: ExceptionPreview | null; problem: string | null; pending: boolean } {
  const [preview, setPreview] = useState<ExceptionPreview | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const key = JSON.stringify(draft);
  useEffect(() => {
    const current = JSON.parse(key) as ExceptionDraft;
    setPreview(null);
    setProblem(null);
    if (!complete(current)) return;
    let live = true;
    setPending(true);
    const timer = window.setTimeout(() => {
      api
        .post<ExceptionPreview>(`/api/rules/${ruleId}/exceptions/preview`, { ...current, field: current.field.trim() })
        .then((p) => live && setPreview(p))
        .catch((e: unknown) => live && setProblem(errorText(e)))
        .finally(() => live && setPending(false));
    }, REST_MS);
    return () => {
      live = false;
      window.clearTimeout(timer);
      setPending(false);
    };
  }, [ruleId, key]);
  return { preview, problem, pending };
}
