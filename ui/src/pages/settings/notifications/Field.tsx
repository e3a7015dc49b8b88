// One labelled setting of the channel form with its hint and the server's error beside it (the control
// marked invalid and described by the error, so a screen reader reads it with the field).
import { useId, type ReactElement } from 'react';

export interface FieldControl {
  id: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
  className?: string;
}

interface FieldProps {
  label: string;
  hint?: string;
  error?: string;
  wide?: boolean;
  /** Draws the control with the attributes that tie it to its label, hint and error. */
  children(control: FieldControl): ReactElement;
}

export function Field({ label, hint, error, wide, children }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={wide ? 'channel-field wide' : 'channel-field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': described || undefined, className: error ? 'invalid' : undefined })}
      {hint && (
        <span id={`${id}-hint`} className="muted small">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}
