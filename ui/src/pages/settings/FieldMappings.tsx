// Settings → one index pattern's field mappings: the preset it starts from (and what that preset
// maps), what happens to fields nobody maps, its own Sigma field → event field rows, and beside them
// the field catalogue of its events, from which a mapping is one click; below, its other settings.
// Admins edit and save (the API redeploys the pattern's deployed rules, or refuses the change when one
// of them would break); the others read.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, api, errorText, type FieldError } from '../../api';
import { Link } from '../../router';
import { useLeaveGuard } from '../../components/useLeaveGuard';
import type { FieldMapping, PatternSettings } from './types';
import { FieldCatalogue } from './FieldCatalogue';
import { MappingTable } from './MappingTable';
import { Message, type Outcome } from './Message';
import { PatternOptions } from './PatternOptions';
import { PatternScope } from './PatternScope';
import { PresetView } from './PresetView';
import { guessSigmaField, newRow, placeErrors, prepare, rowsOf, sameMappings, type DraftRow, type RowErrors } from './mapping-draft';
import { usePresets } from './usePresets';
import { readBy } from './read-by';
import './settings.css';

type DefaultMapping = 'identity' | 'none';

export function FieldMappings({ id, admin }: { id: string; admin: boolean }) {
  const presets = usePresets();
  const [pattern, setPattern] = useState<PatternSettings | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [rows, setRows] = useState<DraftRow[]>([]);
  const [preset, setPreset] = useState('');
  const [defaultMapping, setDefaultMapping] = useState<DefaultMapping>('identity');
  const [rowErrors, setRowErrors] = useState<RowErrors>({});
  const [otherErrors, setOtherErrors] = useState<FieldError[]>([]);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [focus, setFocus] = useState<{ key: number; part: keyof FieldMapping } | null>(null);
  const [catalogueFields, setCatalogueFields] = useState<string[]>([]);
  const [saving, setSaving] = useState(false);
  /** Bumped when a save is refused, to move the focus to the first field in error. */
  const [refusals, setRefusals] = useState(0);

  const show = useCallback((p: PatternSettings) => {
    setPattern(p);
    setRows(rowsOf(p.field_mappings));
    setPreset(p.preset ?? '');
    setDefaultMapping(p.default_mapping ?? 'identity');
    setRowErrors({});
    setOtherErrors([]);
  }, []);

  useEffect(() => {
    let live = true;
    api
      .get<PatternSettings>(`/api/index_patterns/${encodeURIComponent(id)}`)
      .then((p) => live && show(p))
      .catch((e: unknown) => live && setLoadError(errorText(e)));
    return () => {
      live = false;
    };
  }, [id, show]);

  useEffect(() => {
    if (refusals === 0) return;
    const first = document.querySelector<HTMLElement>('form[aria-label="Field mappings"] [aria-invalid="true"]');
    first?.focus();
  }, [refusals]);

  const chosen = presets.find((p) => p.name === preset);

  // Which Sigma fields read each event field: the rows being edited, the preset's tables, the default mapping.
  const mappedFrom = useMemo(() => readBy(rows, chosen, defaultMapping), [rows, chosen, defaultMapping]);

  const prepared = prepare(rows);
  const dirty =
    pattern !== null &&
    (!sameMappings(rows.filter((r) => r.sigma_field.trim() || r.target_field.trim()), pattern.field_mappings ?? []) ||
      preset !== (pattern.preset ?? '') ||
      defaultMapping !== (pattern.default_mapping ?? 'identity'));

  // Leaving the page with unsaved changes asks first: another page of the console (any link, Back), or
  // a reload, a closed tab, another site.
  useLeaveGuard(dirty, 'Leave without saving the changed mappings?');

  if (loadError)
    return (
      <div>
        <Message text={loadError} error />
        <p>
          <Link href="/settings/index-patterns">Back to the index patterns</Link>
        </p>
      </div>
    );
  if (!pattern) return <p role="status">Loading…</p>;

  const change = (key: number, part: keyof FieldMapping, value: string) => {
    setRows((current) => current.map((r) => (r.key === key ? { ...r, [part]: value } : r)));
    setRowErrors((current) => {
      if (!current[key]?.[part]) return current;
      const next = { ...current, [key]: { ...current[key] } };
      delete next[key][part];
      if (Object.keys(next[key]).length === 0) delete next[key];
      return next;
    });
    setOutcome(null);
  };
  /** Adds a row and puts the focus in it (on `part`). */
  const add = (mapping?: FieldMapping, part: keyof FieldMapping = 'sigma_field') => {
    const row = newRow(mapping);
    setRows((current) => [...current, row]);
    setFocus({ key: row.key, part });
    setOutcome(null);
  };
  const remove = (key: number) => {
    setRows((current) => current.filter((r) => r.key !== key));
    setOutcome(null);
  };
  // A refused change that names a field nobody maps (`field 'User' is not mapped`) offers to map it.
  const unmapped = outcome?.error ? /field '([^']{1,256})' is not mapped/.exec(outcome.text)?.[1] : undefined;
  const mapCatalogueField = (field: string) => add({ sigma_field: guessSigmaField(field), target_field: field });

  const save = async () => {
    setOutcome(null);
    setOtherErrors([]);
    if (Object.keys(prepared.errors).length > 0) {
      setRowErrors(prepared.errors);
      setOutcome({ text: 'Some mappings are incomplete: see the marked rows.', error: true });
      setRefusals((n) => n + 1);
      return;
    }
    setSaving(true);
    try {
      const saved = await api.patch<PatternSettings>(`/api/index_patterns/${encodeURIComponent(pattern.id)}`, {
        field_mappings: prepared.mappings,
        preset: preset || null,
        default_mapping: defaultMapping,
      });
      show(saved);
      setOutcome({ text: 'Field mappings saved; the deployed rules of this pattern use them now.' });
    } catch (e) {
      if (e instanceof ApiError && e.errors.length > 0) {
        const placed = placeErrors(e.errors, prepared.keys);
        setRowErrors(placed.rows);
        setOtherErrors(placed.other);
        setOutcome({ text: `${e.detail}${Object.keys(placed.rows).length > 0 ? ': see the marked rows.' : ''}`, error: true });
        setRefusals((n) => n + 1);
      } else {
        setOutcome({ text: errorText(e), error: true });
      }
    } finally {
      setSaving(false);
    }
  };
  const discard = () => {
    show(pattern);
    setOutcome(null);
  };

  return (
    <div>
      <p>
        <Link href="/settings/index-patterns">
          ← Index patterns
        </Link>
      </p>
      <h2>Field mappings of {pattern.name}</h2>
      <p className="muted">
        A rule's Sigma field is read from the event field this pattern maps it to; failing that, from the preset's mapping; failing that, as the setting for unmapped fields
        says. Several rows for one Sigma field read it from any of their event fields.
        {!admin && ' Only administrators change them.'}
      </p>
      <div className="columns">
        <form
          aria-label="Field mappings"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Message text={outcome?.text} error={outcome?.error} />
          {admin && unmapped && !rows.some((r) => r.sigma_field.trim() === unmapped) && (
            <p>
              <button type="button" className="secondary" onClick={() => add({ sigma_field: unmapped, target_field: '' }, 'target_field')}>
                Add a mapping for {unmapped}
              </button>
            </p>
          )}
          {otherErrors.length > 0 && (
            <ul className="error">
              {otherErrors.map((err) => (
                <li key={`${err.field}:${err.message}`}>
                  <span className="mono">{err.field}</span> {err.message}
                </li>
              ))}
            </ul>
          )}
          <div className="row">
            <label>
              Preset
              <select value={preset} disabled={!admin} onChange={(e) => setPreset(e.target.value)}>
                <option value="">None (field names as in the rules)</option>
                {presets.map((p) => (
                  <option key={p.name} value={p.name}>
                    {p.name}
                  </option>
                ))}
                {preset && !chosen && presets.length > 0 && <option value={preset}>{preset} (unknown)</option>}
              </select>
            </label>
            <label>
              Fields nobody maps
              <select value={defaultMapping} disabled={!admin} onChange={(e) => setDefaultMapping(e.target.value as DefaultMapping)}>
                <option value="identity">are read under their own name (or the preset's default)</option>
                <option value="none">are an error: rules using them are refused</option>
              </select>
            </label>
          </div>
          <h3>Mappings of this pattern</h3>
          <MappingTable rows={rows} errors={rowErrors} editable={admin} suggestions={catalogueFields} focus={focus} onChange={change} onRemove={remove} />
          {admin && (
            <div className="button-row form-actions">
              <button type="button" className="secondary" onClick={() => add()}>
                Add mapping
              </button>
              <button type="submit" disabled={saving || !dirty}>
                Save mappings
              </button>
              <button type="button" className="secondary" disabled={saving || !dirty} onClick={discard}>
                Discard changes
              </button>
              {dirty && <span className="muted small">Unsaved changes</span>}
            </div>
          )}
          {chosen && <PresetView preset={chosen} ownFields={prepared.mappings.map((m) => m.sigma_field)} />}
        </form>
        <FieldCatalogue patternId={pattern.id} mappedFrom={mappedFrom} onMap={admin ? mapCatalogueField : undefined} onFields={setCatalogueFields} />
      </div>
      <PatternOptions pattern={pattern} admin={admin} onSaved={setPattern} />
      <PatternScope pattern={pattern} admin={admin} onSaved={setPattern} />
    </div>
  );
}
