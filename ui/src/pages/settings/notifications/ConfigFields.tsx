// The settings of the chosen channel type in the channel form: text, URL, number, choice, one-per-line
// lists, and secrets as password inputs (a stored secret reads "***" and is kept unless replaced).
import { Field } from './Field';
import { CONFIG_FIELDS, MASK, type ChannelType, type ConfigField } from './types';

interface Props {
  type: ChannelType;
  values: Record<string, string>;
  errors: Record<string, string>;
  onChange(name: string, value: string): void;
}

function hintOf(field: ConfigField, value: string): string | undefined {
  if (field.kind === 'secret' && value === MASK) return [field.hint, 'Stored; leave "***" to keep it, or type a new value.'].filter(Boolean).join(' ');
  if (field.name === 'headers' && value === MASK) return 'Stored and sealed; leave "***" to keep them, or type new ones ("Name: value" a line).';
  return field.hint;
}

export function ConfigFields({ type, values, errors, onChange }: Props) {
  return (
    <fieldset className="channel-settings">
      <legend>Settings of the {type} channel</legend>
      {CONFIG_FIELDS[type].map((field) => {
        const value = values[field.name] ?? '';
        return (
          <Field key={`${type}-${field.name}`} label={field.required ? field.label : `${field.label} (optional)`} hint={hintOf(field, value)} error={errors[`config.${field.name}`]} wide={field.kind === 'lines' || field.kind === 'url'}>
            {(control) => {
              const common = { ...control, value, required: field.required, onChange: (e: { target: { value: string } }) => onChange(field.name, e.target.value) };
              switch (field.kind) {
                case 'select':
                  return (
                    <select {...common}>
                      {field.options!.map((o) => (
                        <option key={o} value={o}>
                          {o}
                        </option>
                      ))}
                    </select>
                  );
                case 'lines':
                  return <textarea {...common} rows={3} />;
                case 'secret':
                  return <input {...common} type="password" autoComplete="new-password" />;
                case 'number':
                  return <input {...common} type="number" min={1} max={65535} />;
                case 'url':
                  return <input {...common} type="url" autoComplete="off" />;
                default:
                  return <input {...common} type="text" autoComplete="off" />;
              }
            }}
          </Field>
        );
      })}
    </fieldset>
  );
}
