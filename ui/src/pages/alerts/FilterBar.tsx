// The queue's filter form: status, severity, rule, assignee, the event-time range, the exact host, user,
// source IP and index pattern, free text, and grouping. Selects apply at once; the text boxes apply
// with Enter or "Search". Everything lands in the URL (the page starts over at 1).
import { useEffect, useState, type FormEvent } from 'react';
import { STATUS_LABELS } from '../../format';
import { RulePicker } from '../../components/RulePicker';
import { navigate, updateQuery } from '../../router';
import { ALERT_STATUSES, SEVERITIES } from '../../types';
import { anyFilter, ENTITY_FILTERS, GROUPINGS, type EntityFilter, type Filters } from './filters';
import { TimeFilter } from './TimeFilter';

type Typed = Record<EntityFilter | 'q', string>;

const typedOf = (f: Filters): Typed => ({ q: f.q, host: f.host, user: f.user, source_ip: f.source_ip, index_pattern: f.index_pattern });

export function FilterBar({ filters }: { filters: Filters }) {
  const [typed, setTyped] = useState<Typed>(() => typedOf(filters));
  const current = JSON.stringify(typedOf(filters));
  // The boxes follow the URL (a pivot, Back, a cleared filter).
  useEffect(() => setTyped(JSON.parse(current) as Typed), [current]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    updateQuery({ ...Object.fromEntries(Object.entries(typed).map(([k, v]) => [k, v.trim()])), page: undefined });
  };
  const set = (name: keyof Typed, value: string) => setTyped((t) => ({ ...t, [name]: value }));

  return (
    <form className="filters" onSubmit={submit} role="search" aria-label="Alert filters">
      <label>
        Status
        <select value={filters.status} onChange={(e) => updateQuery({ status: e.target.value, page: undefined })}>
          <option value="">Any</option>
          {ALERT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Severity
        <select value={filters.severity} onChange={(e) => updateQuery({ severity: e.target.value, page: undefined })}>
          <option value="">Any</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <RulePicker value={filters.rule_id} onChange={(id) => updateQuery({ rule_id: id, page: undefined })} />
      <label>
        Assignee
        <select value={filters.assignee} onChange={(e) => updateQuery({ assignee: e.target.value, page: undefined })}>
          <option value="">Anyone</option>
          <option value="me">Me</option>
          <option value="none">Unassigned</option>
        </select>
      </label>
      <TimeFilter filters={filters} />
      <label>
        Group by
        <select value={filters.group} onChange={(e) => updateQuery({ group: e.target.value, page: undefined })}>
          <option value="">No grouping</option>
          {Object.entries(GROUPINGS).map(([value, name]) => (
            <option key={value} value={value}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {(Object.keys(ENTITY_FILTERS) as EntityFilter[]).map((name) => (
        <label key={name} className="entity-filter">
          {ENTITY_FILTERS[name]}
          <input type="text" value={typed[name]} maxLength={name === 'index_pattern' ? 100 : 1024} placeholder="exact value" onChange={(e) => set(name, e.target.value)} />
        </label>
      ))}
      <label className="grow">
        Search
        <input type="search" value={typed.q} placeholder="host, user, IP, rule or event text (3+ characters)" onChange={(e) => set('q', e.target.value)} minLength={3} />
      </label>
      <button type="submit">Search</button>
      {anyFilter(filters) && (
        <button type="button" className="secondary" onClick={() => navigate('/alerts' + (filters.group ? `?group=${filters.group}` : ''))}>
          Clear filters
        </button>
      )}
    </form>
  );
}
