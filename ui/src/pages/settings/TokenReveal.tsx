// The one-time view of an index pattern's ingest token, with copy-paste configurations for curl,
// Filebeat, Fluent Bit and Vector.
import { useState } from 'react';
import { CopyBlock } from '../../components/CopyBlock';

export function shipperSnippets(origin: string, pattern: string, token: string): [string, string][] {
  const url = new URL(origin);
  return [
    ['curl', `curl -X POST '${origin}/api/logs/${pattern}' \\\n  -H 'Authorization: Bearer ${token}' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"@timestamp":"2026-01-01T00:00:00Z","message":"hello"}'`],
    [
      'Filebeat',
      `output.elasticsearch:\n  hosts: ["${origin}"]\n  path: "/api/es"\n  username: "filebeat"\n  password: "${token}"\n  allow_older_versions: true\nsetup.template.enabled: false\nsetup.ilm.enabled: false`,
    ],
    [
      'Fluent Bit',
      `[OUTPUT]\n    Name               es\n    Match              *\n    Host               ${url.hostname}\n    Port               ${url.port || (url.protocol === 'https:' ? '443' : '80')}\n    Path               /api/es\n    HTTP_User          fluent-bit\n    HTTP_Passwd        ${token}\n    Suppress_Type_Name On\n    Index              ${pattern}`,
    ],
    [
      'Vector',
      `[sinks.vigil]\ntype = "elasticsearch"\ninputs = ["app_logs"]\nendpoints = ["${origin}/api/es"]\napi_version = "v8"\nauth.strategy = "basic"\nauth.user = "vector"\nauth.password = "${token}"\nbulk.index = "${pattern}"`,
    ],
  ];
}

export function TokenReveal({ pattern, token, onClose }: { pattern: string; token: string; onClose(): void }) {
  const snippets = shipperSnippets(window.location.origin, pattern, token);
  const [shipper, setShipper] = useState(snippets[0][0]);
  return (
    <div className="panel" role="region" aria-label="Ingest token">
      <h3>Ingest token of {pattern}</h3>
      <p>
        <strong>Copy it now: it is shown only once.</strong> Rotate the token to get a new one.
      </p>
      <CopyBlock text={token} label="Token" />
      <label>
        Shipper
        <select value={shipper} onChange={(e) => setShipper(e.target.value)}>
          {snippets.map(([name]) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </label>
      <CopyBlock text={snippets.find(([n]) => n === shipper)![1]} label="Configuration" />
      <button type="button" className="secondary" onClick={onClose}>
        I have copied it
      </button>
    </div>
  );
}
