// A form in a panel: named for assistive technology, an optional heading, its outcome message, the
// fields in a row, and one submit button.
import type { FormEvent, ReactNode } from 'react';
import { Message, type Outcome } from './Message';

interface PanelFormProps {
  /** The form's accessible name, and its heading unless `heading` says otherwise. */
  label: string;
  heading?: string | null;
  /** The heading's level: 3 inside a section, 2 when the form is a section of its own. */
  level?: 2 | 3;
  submit: string;
  submitClass?: string;
  outcome?: Outcome | null;
  /** Shown above the fields. */
  intro?: ReactNode;
  onSubmit(): void | Promise<void>;
  children: ReactNode;
}

export function PanelForm({ label, heading, level = 3, submit, submitClass, outcome, intro, onSubmit, children }: PanelFormProps) {
  const title = heading === undefined ? label : heading;
  const Heading = level === 2 ? 'h2' : 'h3';
  const send = (event: FormEvent) => {
    event.preventDefault();
    void onSubmit();
  };
  return (
    <form className="panel" onSubmit={send} aria-label={label}>
      {title && <Heading>{title}</Heading>}
      <Message text={outcome?.text} error={outcome?.error} />
      {intro}
      <div className="row">{children}</div>
      <button type="submit" className={submitClass}>
        {submit}
      </button>
    </form>
  );
}

/** A password input with its label (sign-in secrets are never autofilled into the wrong field). */
export function PasswordField({ label, value, onChange, autoComplete, minLength }: { label: string; value: string; onChange(value: string): void; autoComplete: string; minLength?: number }) {
  return (
    <label>
      {label}
      <input type="password" autoComplete={autoComplete} required minLength={minLength} value={value} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}
