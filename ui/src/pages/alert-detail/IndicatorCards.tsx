// Threat-intelligence matches of an alert as cards: what was listed (type and value), on which feed, with
// which score, and where in the event it was found (the field path and the value seen there).
import type { Enrichment } from '../../types';
import type { IndicatorMatch } from './types';

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

export function IndicatorCards({ enrichment }: { enrichment: Enrichment | undefined }) {
  if (!enrichment) return <p className="muted">No threat-intelligence indicator in this event.</p>;
  const indicators = enrichment.indicators as IndicatorMatch[];
  return (
    <div>
      <p>
        Risk <strong>{enrichment.risk_level}</strong> (score {enrichment.risk_score})
      </p>
      <ul className="indicator-cards" aria-label="Threat-intelligence matches">
        {indicators.map((indicator, i) => {
          const seen = text(indicator.matched_value);
          return (
            <li key={i} className="indicator-card">
              <div className="indicator-head">
                <span className="badge indicator-type">{text(indicator.type) ?? 'indicator'}</span> <code className="indicator-value">{text(indicator.value) ?? '(no value)'}</code>
              </div>
              <dl className="fields">
                <div>
                  <dt>Feed</dt>
                  <dd>{text(indicator.feed) ?? <span className="muted">unknown</span>}</dd>
                </div>
                <div>
                  <dt>Score</dt>
                  <dd>{text(indicator.score) ?? <span className="muted">none</span>}</dd>
                </div>
                <div>
                  <dt>Found in</dt>
                  <dd>{text(indicator.matched_field) ? <code>{indicator.matched_field}</code> : <span className="muted">unknown field</span>}</dd>
                </div>
                {seen !== undefined && seen !== text(indicator.value) && (
                  <div>
                    <dt>Value seen</dt>
                    <dd>
                      <code>{seen}</code>
                    </dd>
                  </div>
                )}
              </dl>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
