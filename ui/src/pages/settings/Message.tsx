// A one-line outcome of a settings action: a status notice, or an error announced as an alert.
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
