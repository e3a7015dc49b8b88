// The fields a rule matched on, each with where it sits in the stored event when the rule read it under
// another name (a mapped ECS field, a field of an evtx_dump event's EventData, NXLog's SourceName).
import type { MatchedField } from './types';

export function MatchedOn({ fields }: { fields: MatchedField[] }) {
  return (
    <div className="matched-on">
      <span className="muted">Matched on:</span>
      <ul className="inline-list" aria-label="Matched fields">
        {fields.map((f) => (
          <li key={f.field}>
            <mark>{f.field}</mark>
            {f.paths.length === 0 ? (
              <span className="muted"> (not found in the stored event)</span>
            ) : (
              f.paths.some((p) => p !== f.field) && <span className="muted"> at {f.paths.join(', ')}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
