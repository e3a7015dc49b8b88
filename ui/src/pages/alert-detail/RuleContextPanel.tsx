// The rule behind an alert as its YAML describes it: description, known false positives, references
// (links that open outside the console), author and ATT&CK techniques linked to their pages.
import type { RuleContext } from './types';

const external = { target: '_blank', rel: 'noopener noreferrer' } as const;

/** Only http(s) references become links; anything else is shown as text. */
const isWebLink = (text: string): boolean => /^https?:\/\/\S+$/i.test(text.trim());

export function RuleContextPanel({ rule }: { rule: RuleContext | null }) {
  if (!rule) return <p className="muted">The rule of this alert was deleted; its description is no longer available.</p>;
  return (
    <div className="rule-context">
      {rule.description ? <p className="rule-description">{rule.description}</p> : <p className="muted">The rule has no description.</p>}
      <dl className="fields">
        {rule.author && (
          <div>
            <dt>Author</dt>
            <dd>{rule.author}</dd>
          </div>
        )}
        <div>
          <dt>ATT&amp;CK</dt>
          <dd>
            {rule.techniques.length === 0 ? (
              <span className="muted">No technique tagged</span>
            ) : (
              <ul className="inline-list" aria-label="ATT&CK techniques">
                {rule.techniques.map((t) => (
                  <li key={t.id}>
                    <a href={t.url} {...external}>
                      {t.id}
                      <span className="visually-hidden"> on attack.mitre.org (opens in a new tab)</span>
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </div>
      </dl>
      <h3>False positives</h3>
      {rule.false_positives.length === 0 ? (
        <p className="muted">None listed.</p>
      ) : (
        <ul>
          {rule.false_positives.map((text, i) => (
            <li key={i}>{text}</li>
          ))}
        </ul>
      )}
      <h3>References</h3>
      {rule.references.length === 0 ? (
        <p className="muted">None listed.</p>
      ) : (
        <ul className="references">
          {rule.references.map((ref, i) => (
            <li key={i}>
              {isWebLink(ref) ? (
                <a href={ref.trim()} {...external}>
                  {ref}
                </a>
              ) : (
                ref
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
