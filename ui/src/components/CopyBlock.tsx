// A block of text to copy (a token, a shipper configuration) with a copy button.
import { useState } from 'react';

export function CopyBlock({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="copy-block">
      <pre className="code" aria-label={label} tabIndex={0}>
        {text}
      </pre>
      <button
        type="button"
        className="tiny secondary"
        onClick={() =>
          void navigator.clipboard
            ?.writeText(text)
            .then(() => setCopied(true))
            .catch(() => setCopied(false))
        }
      >
        {copied ? 'Copied' : `Copy ${label.toLowerCase()}`}
      </button>
    </div>
  );
}
