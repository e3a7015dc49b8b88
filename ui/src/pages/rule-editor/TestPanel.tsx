// The rule's Test tab: a sample log run against the saved rule (or the unsaved YAML when it was edited),
// and the historical test of the saved rule over 1 hour to 7 days of stored events.
import { useState } from 'react';
import { api, ApiError, errorText } from '../../api';
import type { HistoricalResult, Rule, TestResult } from '../../types';
import { SAMPLE } from './template';

export function TestPanel({ rule, yaml, dirty, pattern }: { rule: Rule | null; yaml: string; dirty: boolean; pattern: string }) {
  const [sample, setSample] = useState(SAMPLE);
  const [result, setResult] = useState<TestResult | null>(null);
  const [historical, setHistorical] = useState<HistoricalResult | null>(null);
  const [range, setRange] = useState('1d');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const runSample = async () => {
    setMessage(null);
    setResult(null);
    let log: unknown;
    try {
      log = JSON.parse(sample);
    } catch (e) {
      setMessage(`The sample log is not valid JSON: ${errorText(e)}`);
      return;
    }
    try {
      setResult(
        rule && !dirty
          ? await api.post<TestResult>(`/api/rules/${rule.id}/test`, { sample_log: log })
          : await api.post<TestResult>('/api/rules/test', { yaml_content: yaml, sample_log: log, ...(pattern ? { index_pattern: pattern } : {}) }),
      );
    } catch (e) {
      setMessage(errorText(e) + (e instanceof ApiError && e.errors.length ? `: ${e.errors.map((x) => `${x.field}: ${x.message}`).join('; ')}` : ''));
    }
  };

  const runHistorical = async () => {
    if (!rule) return;
    setMessage(null);
    setHistorical(null);
    setBusy(true);
    try {
      setHistorical(await api.post<HistoricalResult>(`/api/rules/${rule.id}/test/historical`, { time_range: range, limit: 10 }));
    } catch (e) {
      setMessage(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="test-panel">
      <h2>Test against a sample log</h2>
      <label>
        Sample log (JSON object; for a correlation rule, a list of events)
        <textarea className="code" rows={8} spellCheck={false} value={sample} onChange={(e) => setSample(e.target.value)} />
      </label>
      <button type="button" onClick={() => void runSample()}>
        {rule && !dirty ? 'Test rule' : 'Test unsaved YAML'}
      </button>
      {result && (
        <div className={`test-result ${result.matches ? 'match' : 'no-match'}`} role="status">
          <strong>{resultText(result)}</strong>
          {result.matched_conditions.length > 0 && <pre className="code">{JSON.stringify(result.matched_conditions, null, 2)}</pre>}
          {result.firings && result.firings.length > 0 && <pre className="code">{JSON.stringify(result.firings, null, 2)}</pre>}
        </div>
      )}
      {rule && (
        <>
          <h2>Historical test</h2>
          <p className="muted">Runs the saved rule over the events stored in the range; creates no alert.</p>
          <div className="row">
            <label>
              Time range
              <select value={range} onChange={(e) => setRange(e.target.value)}>
                <option value="1h">Last hour</option>
                <option value="6h">Last 6 hours</option>
                <option value="1d">Last day</option>
                <option value="7d">Last 7 days</option>
              </select>
            </label>
            <button type="button" disabled={busy} onClick={() => void runHistorical()}>
              {busy ? 'Running…' : 'Run historical test'}
            </button>
          </div>
          {historical && (
            <div role="status">
              <p>
                <strong>{historical.matches}</strong> matching event(s)
                {historical.events_scanned !== undefined ? ` in ${historical.events_scanned.toLocaleString()} scanned` : ''}.
              </p>
              {historical.sample_matches.map((m, i) => (
                <pre key={i} className="code small">
                  {JSON.stringify(m, null, 2)}
                </pre>
              ))}
            </div>
          )}
        </>
      )}
      {message && (
        <p className="error" role="alert">
          {message}
        </p>
      )}
    </div>
  );
}

function resultText(result: TestResult): string {
  if (result.firings) return result.firings.length === 0 ? 'Does not fire' : `Fires ${result.firings.length} time(s)`;
  if (!result.matches) return 'No match';
  return result.excepted ? 'Matches, but an exception suppresses the alert' : 'Matches';
}
