// The rule editor's check as you type: a local YAML parse on every change (syntax errors at once, with
// line and column), and half a second after the last key the server's check through the unsaved-rule test
// (POST /api/rules/test, which creates nothing), whose errors are placed at their lines in the current text.
import { useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, type FieldError } from '../../api';
import type { TestResult } from '../../types';
import { useSettledText } from './useSettledText';
import { lineOfField, parseLocally, placeInMessage, type Problem } from './yaml-problems';

/** What the server said about a text. */
export interface ServerCheck {
  state: 'idle' | 'checking' | 'ok' | 'invalid';
  detail?: string;
  errors?: FieldError[];
}

export interface RuleCheck {
  state: 'idle' | 'checking' | 'ok' | 'invalid';
  detail?: string;
  problems: Problem[];
}

export const CHECK_DELAY_MS = 500;

export function useRuleCheck(yaml: string, enabled: boolean): { check: RuleCheck; setServerCheck(check: ServerCheck): void } {
  // The local parse of a long rule (tens of milliseconds) waits for the typing to rest.
  const parsed = useSettledText(yaml);
  const local = useMemo(() => parseLocally(parsed), [parsed]);
  const [server, setServer] = useState<ServerCheck>({ state: 'idle' });
  const sequence = useRef(0);

  useEffect(() => {
    if (!enabled || !yaml.trim()) return;
    const mine = ++sequence.current;
    const timer = window.setTimeout(() => {
      setServer((s) => ({ ...s, state: 'checking' }));
      api
        .post<TestResult>('/api/rules/test', { yaml_content: yaml, sample_log: {} })
        .then(() => mine === sequence.current && setServer({ state: 'ok' }))
        .catch((e: unknown) => {
          if (mine !== sequence.current) return;
          setServer(e instanceof ApiError && (e.status === 400 || e.status === 422) ? { state: 'invalid', detail: e.detail, errors: e.errors } : { state: 'idle' });
        });
    }, CHECK_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [yaml, enabled]);

  const check = useMemo<RuleCheck>(() => {
    const problems: Problem[] = [...local.problems];
    const syntaxLocally = local.problems.length > 0;
    if (server.state === 'invalid' || (server.state === 'checking' && server.detail)) {
      if (server.errors && server.errors.length > 0) {
        for (const error of server.errors) {
          const place = placeInMessage(error.message);
          problems.push({ line: place?.line ?? lineOfField(local, error.field), column: place?.column ?? null, message: error.message, field: error.field, source: 'check' });
        }
      } else if (server.detail && !syntaxLocally) {
        const place = placeInMessage(server.detail);
        problems.push({ line: place?.line ?? null, column: place?.column ?? null, message: server.detail.replace(/^Invalid YAML syntax: /, ''), source: 'check' });
      }
    }
    problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    if (syntaxLocally) return { state: 'invalid', detail: 'Invalid YAML syntax', problems };
    if (server.state === 'invalid') return { state: 'invalid', detail: server.detail, problems };
    return { state: server.state, detail: server.detail, problems };
  }, [local, server]);

  return { check, setServerCheck: setServer };
}
