// A one-line outcome of a settings action: a status notice, or an error announced as an alert; a save's
// outcome also lists the API's validation errors under it.
export interface Outcome {
  text: string;
  error?: boolean;
}

export function Message({ text, error }: { text: string | null | undefined; error?: boolean }) {
  if (!text) return null;
  return (
    <p className={error ? 'error' : 'notice'} role={error ? 'alert' : 'status'}>
      {text}
    </p>
  );
}

/** The outcome of a save with the API's validation errors ("field: message") listed under it. */
export function SaveOutcome({ outcome, errors }: { outcome: Outcome | null; errors: string[] }) {
  return (
    <>
      <Message text={outcome?.text} error={outcome?.error} />
      {errors.length > 0 && (
        <ul className="error">
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
    </>
  );
}
