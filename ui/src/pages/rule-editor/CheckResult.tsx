// The verdict under the YAML editor, announced as it changes (aria-live): checking, valid, or the problems,
// each with a button that puts the caret at its line, so every error is reachable from the keyboard.
import type { RuleCheck } from './useRuleCheck';

export function CheckResult({ id, check, onJump }: { id: string; check: RuleCheck; onJump(line: number, column: number | null): void }) {
  const invalid = check.state === 'invalid' || check.problems.length > 0;
  return (
    <div id={id} className="check-result" aria-live="polite">
      {check.state === 'checking' && !invalid && <span className="muted">Checking…</span>}
      {check.state === 'ok' && !invalid && <span className="ok">Valid Sigma rule</span>}
      {invalid && (
        <div className="error">
          <strong>{check.detail ?? 'Invalid rule'}</strong>
          {check.problems.length > 0 && (
            <ul className="yaml-problems">
              {check.problems.map((problem, i) => (
                <li key={i}>
                  {problem.line !== null ? (
                    <button type="button" className="link-button" onClick={() => onJump(problem.line!, problem.column)}>
                      Line {problem.line}
                      {problem.column !== null ? `, column ${problem.column}` : ''}
                    </button>
                  ) : null}
                  {problem.line !== null && problem.field ? ' ' : ''}
                  {problem.field && <code>{problem.field}</code>}
                  {problem.line !== null || problem.field ? ': ' : ''}
                  {problem.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
