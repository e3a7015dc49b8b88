// Picks one rule out of thousands for a filter: a search box narrows the choice to the rules whose title
// (or description, Sigma id, author) holds the text, asked of the server as you type; the list holds
// "Any", the rule chosen now and up to 25 matches.
import { useEffect, useState } from 'react';
import { api, query, type Page } from '../api';
import type { Rule } from '../types';

const SHOWN = 25;
const DELAY_MS = 250;

export function RulePicker({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const [text, setText] = useState('');
  const [rules, setRules] = useState<Rule[]>([]);
  const [chosen, setChosen] = useState<Rule | null>(null);

  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      api
        .get<Page<Rule>>(`/api/rules${query({ page_size: SHOWN, sort_by: 'title', sort_order: 'asc', search: text.trim() || undefined })}`)
        .then((page) => live && setRules(page.items))
        .catch(() => live && setRules([]));
    }, text ? DELAY_MS : 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text]);

  useEffect(() => {
    if (!value || chosen?.id === value) return;
    let live = true;
    api
      .get<Rule>(`/api/rules/${encodeURIComponent(value)}`)
      .then((rule) => live && setChosen(rule))
      .catch(() => live && setChosen(null));
    return () => {
      live = false;
    };
  }, [value, chosen]);

  const options = chosen && chosen.id === value && !rules.some((r) => r.id === value) ? [chosen, ...rules] : rules;
  return (
    <span className="rule-picker">
      <label>
        Find rule
        <input type="search" value={text} placeholder="title, author, id…" onChange={(e) => setText(e.target.value)} />
      </label>
      <label>
        Rule
        <select value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">Any</option>
          {value && !options.some((r) => r.id === value) && <option value={value}>This rule</option>}
          {options.map((r) => (
            <option key={r.id} value={r.id}>
              {r.title}
            </option>
          ))}
        </select>
      </label>
    </span>
  );
}
