// Settings: index patterns (with the ingest token shown once and shipper snippets), API keys, users
// (admin), the user's own two-factor login, and the audit log (admin).
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, errorText, query, type Page } from '../api';
import { CopyBlock } from '../components/CopyBlock';
import { QrCode } from '../components/QrCode';
import { formatTime } from '../format';
import { Link } from '../router';
import { isAdmin, useSession } from '../session';
import type { ApiKey, AuditEntry, IndexPattern, User } from '../types';
import { Feeds } from './Feeds';

const TABS = [
  { id: 'index-patterns', label: 'Index patterns' },
  { id: 'api-keys', label: 'API keys' },
  { id: 'threat-intel', label: 'Threat intel' },
  { id: 'security', label: 'Two-factor login' },
  { id: 'users', label: 'Users', admin: true },
  { id: 'audit', label: 'Audit log', admin: true },
];

export function SettingsPage({ tab }: { tab: string }) {
  const { user } = useSession();
  const tabs = TABS.filter((t) => !t.admin || isAdmin(user));
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <nav className="tabs" aria-label="Settings sections">
        {tabs.map((t) => (
          <Link key={t.id} href={`/settings/${t.id}`} className={tab === t.id ? 'active' : ''} aria-current={tab === t.id ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      {tab === 'index-patterns' && <IndexPatterns admin={isAdmin(user)} />}
      {tab === 'api-keys' && <ApiKeys admin={isAdmin(user)} />}
      {tab === 'threat-intel' && <Feeds admin={isAdmin(user)} />}
      {tab === 'security' && (
        <>
          <TwoFactor />
          <PasswordChange />
        </>
      )}
      {tab === 'users' && isAdmin(user) && <Users self={user!} />}
      {tab === 'audit' && isAdmin(user) && <Audit />}
    </section>
  );
}

function Message({ text, error }: { text: string | null; error?: boolean }) {
  if (!text) return null;
  return (
    <p className={error ? 'error' : 'notice'} role={error ? 'alert' : 'status'}>
      {text}
    </p>
  );
}

function shipperSnippets(origin: string, pattern: string, token: string): [string, string][] {
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

function TokenReveal({ pattern, token, onClose }: { pattern: string; token: string; onClose(): void }) {
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

function IndexPatterns({ admin }: { admin: boolean }) {
  const [items, setItems] = useState<IndexPattern[]>([]);
  const [presets, setPresets] = useState<{ name: string; description: string }[]>([]);
  const [name, setName] = useState('');
  const [preset, setPreset] = useState('');
  const [isDefault, setIsDefault] = useState(false);
  const [revealed, setRevealed] = useState<{ pattern: string; token: string } | null>(null);
  const [message, setMessage] = useState<{ text: string; error?: boolean } | null>(null);

  const load = useCallback(() => {
    api
      .get<Page<IndexPattern>>('/api/index_patterns?page_size=100')
      .then((p) => setItems(p.items))
      .catch((e: unknown) => setMessage({ text: errorText(e), error: true }));
  }, []);
  useEffect(() => {
    load();
    api
      .get<{ name: string; description: string }[]>('/api/field_mapping_presets')
      .then(setPresets)
      .catch(() => setPresets([]));
  }, [load]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const created = await api.post<IndexPattern>('/api/index_patterns', { name, is_default: isDefault, ...(preset ? { preset } : {}) });
      setRevealed({ pattern: created.name, token: created.ingest_token ?? '' });
      setName('');
      setIsDefault(false);
      setMessage(null);
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  const rotate = async (p: IndexPattern) => {
    if (!window.confirm(`Rotate the ingest token of ${p.name}? Shippers using the old token stop working.`)) return;
    try {
      const answer = await api.post<{ ingest_token: string }>(`/api/index_patterns/${p.id}/rotate_token`);
      setRevealed({ pattern: p.name, token: answer.ingest_token });
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  const remove = async (p: IndexPattern) => {
    if (!window.confirm(`Delete the index pattern ${p.name}?`)) return;
    try {
      await api.delete(`/api/index_patterns/${p.id}`);
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  return (
    <div>
      <h2>Index patterns</h2>
      <p className="muted">An index pattern receives events (POST /api/logs/&lt;name&gt; or the Elasticsearch-compatible /api/es) and holds the field mappings its rules use.</p>
      <Message text={message?.text ?? null} error={message?.error} />
      {revealed && <TokenReveal pattern={revealed.pattern} token={revealed.token} onClose={() => setRevealed(null)} />}
      <table>
        <caption className="visually-hidden">Index patterns</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Timestamp field</th>
            <th scope="col">Retention</th>
            <th scope="col">Token</th>
            {admin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {items.map((p) => (
            <tr key={p.id}>
              <td>
                {p.name} {p.is_default && <span className="badge">default</span>}
              </td>
              <td className="mono">{p.timestamp_field}</td>
              <td>{p.retention_days} days</td>
              <td className="mono">{(p as IndexPattern & { ingest_token_prefix?: string }).ingest_token_prefix}…</td>
              {admin && (
                <td>
                  <div className="button-row">
                    <button type="button" className="tiny secondary" onClick={() => void rotate(p)}>
                      Rotate token
                    </button>
                    <button type="button" className="tiny danger" onClick={() => void remove(p)}>
                      Delete
                    </button>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {items.length === 0 && <p className="muted">No index pattern yet.</p>}
      {admin && (
        <form className="panel" onSubmit={create} aria-label="New index pattern">
          <h3>New index pattern</h3>
          <div className="row">
            <label>
              Name
              <input value={name} required pattern="[a-z0-9._\-]+" maxLength={100} title="lowercase letters, digits, dot, underscore, hyphen" onChange={(e) => setName(e.target.value)} />
            </label>
            <label>
              Field mapping preset
              <select value={preset} onChange={(e) => setPreset(e.target.value)}>
                <option value="">None (field names as in the rules)</option>
                {presets.map((p) => (
                  <option key={p.name} value={p.name}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="inline">
              <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} /> Default pattern for new rules
            </label>
          </div>
          <button type="submit">Create index pattern</button>
        </form>
      )}
    </div>
  );
}

function ApiKeys({ admin }: { admin: boolean }) {
  const [items, setItems] = useState<ApiKey[]>([]);
  const [name, setName] = useState('');
  const [tier, setTier] = useState('standard');
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(() => {
    api
      .get<Page<ApiKey>>('/api/api_keys?page_size=100')
      .then((p) => setItems(p.items))
      .catch((e: unknown) => setMessage(errorText(e)));
  }, []);
  useEffect(load, [load]);
  const create = async (event: FormEvent) => {
    event.preventDefault();
    try {
      setCreated(await api.post<ApiKey>('/api/api_keys', { name, ...(admin ? { tier } : {}) }));
      setName('');
      setMessage(null);
      load();
    } catch (e) {
      setMessage(errorText(e));
    }
  };
  const revoke = async (key: ApiKey) => {
    if (!window.confirm(`Revoke the API key ${key.name}? Integrations using it stop working at once.`)) return;
    try {
      await api.delete(`/api/api_keys/${key.id}`);
      load();
    } catch (e) {
      setMessage(errorText(e));
    }
  };
  return (
    <div>
      <h2>API keys</h2>
      <p className="muted">API keys give integrations read-only access to /api/external/alerts, /rules and /stats.</p>
      <Message text={message} error />
      {created?.key && (
        <div className="panel" role="region" aria-label="New API key">
          <h3>API key {created.name}</h3>
          <p>
            <strong>Copy it now: it is shown only once.</strong>
          </p>
          <CopyBlock text={created.key} label="Key" />
          <CopyBlock text={`curl -H 'Authorization: Bearer ${created.key}' ${window.location.origin}/api/external/alerts`} label="Example" />
          <button type="button" className="secondary" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      )}
      <form className="row" onSubmit={create} aria-label="New API key">
        <label className="grow">
          Key name
          <input value={name} required maxLength={100} onChange={(e) => setName(e.target.value)} />
        </label>
        {admin && (
          <label>
            Rate-limit tier
            <select value={tier} onChange={(e) => setTier(e.target.value)}>
              <option value="standard">Standard (60/min)</option>
              <option value="high">High (300/min)</option>
            </select>
          </label>
        )}
        <button type="submit">Create API key</button>
      </form>
      <table>
        <caption className="visually-hidden">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Tier</th>
            <th scope="col">Owner</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {items.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td className="mono">{k.prefix}…</td>
              <td>{k.tier}</td>
              <td>{k.owner}</td>
              <td>{formatTime(k.created_at)}</td>
              <td>
                <button type="button" className="tiny danger" onClick={() => void revoke(k)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {items.length === 0 && <p className="muted">No API keys.</p>}
    </div>
  );
}

function TwoFactor() {
  const { user, refresh } = useSession();
  const [setup, setSetup] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [message, setMessage] = useState<{ text: string; error?: boolean } | null>(null);

  if (user?.auth_method === 'sso') return <p>Your account signs in through single sign-on; two-factor login is handled by your identity provider.</p>;

  const start = async () => {
    try {
      setSetup(await api.post<{ secret: string; otpauth_uri: string }>('/api/auth/2fa/setup'));
      setMessage(null);
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };
  const enable = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const answer = await api.post<{ recovery_codes: string[] }>('/api/auth/2fa/enable', { code: code.trim() });
      setRecovery(answer.recovery_codes);
      setSetup(null);
      setCode('');
      await refresh();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };
  const disable = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api.post('/api/auth/2fa/disable', { password, code: code.trim() });
      setPassword('');
      setCode('');
      setMessage({ text: 'Two-factor login is off.' });
      await refresh();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };

  return (
    <div>
      <h2>Two-factor login</h2>
      <Message text={message?.text ?? null} error={message?.error} />
      {recovery && (
        <div className="panel" role="region" aria-label="Recovery codes">
          <h3>Recovery codes</h3>
          <p>
            <strong>Keep these somewhere safe: each works once in place of a code, and they are shown only now.</strong>
          </p>
          <CopyBlock text={recovery.join('\n')} label="Codes" />
        </div>
      )}
      {user?.two_factor_enabled ? (
        <form onSubmit={disable} className="panel" aria-label="Turn off two-factor login">
          <p>Two-factor login is on for your account.</p>
          <div className="row">
            <label>
              Password
              <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
            <label>
              Current code
              <input inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
            </label>
          </div>
          <button type="submit" className="danger">
            Turn off two-factor login
          </button>
        </form>
      ) : setup ? (
        <form onSubmit={enable} className="panel" aria-label="Turn on two-factor login">
          <p>Scan this code with an authenticator app (or enter the secret by hand), then type the six-digit code it shows.</p>
          <QrCode text={setup.otpauth_uri} label="QR code for your authenticator app" />
          <CopyBlock text={setup.secret} label="Secret" />
          <label>
            Code from the app
            <input inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
          </label>
          <button type="submit">Turn on two-factor login</button>
        </form>
      ) : (
        <div>
          <p>Two-factor login is off. With it on, signing in asks for a code from an authenticator app as well as the password.</p>
          <button type="button" onClick={() => void start()}>
            Set up two-factor login
          </button>
        </div>
      )}
    </div>
  );
}

function Users({ self }: { self: User }) {
  const [items, setItems] = useState<(User & { disabled: boolean })[]>([]);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState('analyst');
  const [message, setMessage] = useState<{ text: string; error?: boolean } | null>(null);
  const load = useCallback(() => {
    api
      .get<Page<User & { disabled: boolean }>>('/api/users?page_size=100')
      .then((p) => setItems(p.items))
      .catch((e: unknown) => setMessage({ text: errorText(e), error: true }));
  }, []);
  useEffect(load, [load]);
  const run = async (work: () => Promise<unknown>, done?: string) => {
    try {
      await work();
      setMessage(done ? { text: done } : null);
      load();
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };
  return (
    <div>
      <h2>Users</h2>
      <Message text={message?.text ?? null} error={message?.error} />
      <table>
        <caption className="visually-hidden">Users</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Role</th>
            <th scope="col">Two-factor</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {items.map((u) => (
            <tr key={u.id} className={u.disabled ? 'disabled' : undefined}>
              <td>{u.username}</td>
              <td>
                <select aria-label={`Role of ${u.username}`} value={u.role} disabled={u.id === self.id} onChange={(e) => void run(() => api.patch(`/api/users/${u.id}`, { role: e.target.value }))}>
                  <option value="viewer">viewer</option>
                  <option value="analyst">analyst</option>
                  <option value="admin">admin</option>
                </select>
              </td>
              <td>{u.two_factor_enabled ? 'on' : 'off'}</td>
              <td>{u.disabled ? 'disabled' : 'active'}</td>
              <td>
                {u.id !== self.id && (
                  <div className="button-row">
                    <button type="button" className="tiny secondary" onClick={() => void run(() => api.patch(`/api/users/${u.id}`, { disabled: !u.disabled }))}>
                      {u.disabled ? 'Enable' : 'Disable'}
                    </button>
                    {u.two_factor_enabled && (
                      <button type="button" className="tiny secondary" onClick={() => void run(() => api.delete(`/api/users/${u.id}/2fa`), `Two-factor login reset for ${u.username}.`)}>
                        Reset 2FA
                      </button>
                    )}
                    <button
                      type="button"
                      className="tiny danger"
                      onClick={() => window.confirm(`Delete the user ${u.username}?`) && void run(() => api.delete(`/api/users/${u.id}`))}
                    >
                      Delete
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="panel"
        aria-label="New user"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            await api.post('/api/users', { username, password, role });
            setUsername('');
            setPassword('');
          }, 'User created.');
        }}
      >
        <h3>New user</h3>
        <div className="row">
          <label>
            Username
            <input value={username} required maxLength={100} autoComplete="off" onChange={(e) => setUsername(e.target.value)} />
          </label>
          <label>
            Password (12+ characters)
            <input type="password" value={password} required minLength={12} autoComplete="new-password" onChange={(e) => setPassword(e.target.value)} />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.target.value)}>
              <option value="viewer">viewer</option>
              <option value="analyst">analyst</option>
              <option value="admin">admin</option>
            </select>
          </label>
        </div>
        <button type="submit">Create user</button>
      </form>
    </div>
  );
}

function Audit() {
  const [data, setData] = useState<Page<AuditEntry> | null>(null);
  const [page, setPage] = useState(1);
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [filters, setFilters] = useState({ action: '', actor: '' });
  useEffect(() => {
    api
      .get<Page<AuditEntry>>('/api/audit' + query({ page, page_size: 50, action: filters.action, actor: filters.actor }))
      .then(setData)
      .catch((e: unknown) => setMessage(errorText(e)));
  }, [page, filters]);
  return (
    <div>
      <h2>Audit log</h2>
      <Message text={message} error />
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setFilters({ action, actor });
        }}
      >
        <label>
          Action
          <input value={action} onChange={(e) => setAction(e.target.value)} placeholder="e.g. rule.create" />
        </label>
        <label>
          Actor
          <input value={actor} onChange={(e) => setActor(e.target.value)} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <table>
        <caption className="visually-hidden">Audit log entries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">From</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {data?.items.map((e, i) => (
            <tr key={String(e.id ?? i)}>
              <td>{formatTime(e.created_at)}</td>
              <td>{e.actor}</td>
              <td className="mono">{e.action}</td>
              <td className="mono small">{[e.target_type, e.target_id].filter(Boolean).join(' ')}</td>
              <td className="mono">{e.ip}</td>
              <td className="mono small">{e.details && Object.keys(e.details).length ? JSON.stringify(e.details) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.pages > 1 && (
        <nav className="pager" aria-label="Audit pages">
          <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {data.pages}
          </span>
          <button type="button" className="secondary" disabled={page >= data.pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

function PasswordChange() {
  const { user } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [message, setMessage] = useState<{ text: string; error?: boolean } | null>(null);
  if (user?.auth_method === 'sso') return null;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api.post('/api/auth/password', { current_password: current, new_password: next });
      setCurrent('');
      setNext('');
      setMessage({ text: 'Password changed; your other sessions were signed out.' });
    } catch (e) {
      setMessage({ text: errorText(e), error: true });
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="Change password">
      <h2>Password</h2>
      <Message text={message?.text ?? null} error={message?.error} />
      <div className="row">
        <label>
          Current password
          <input type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
        </label>
        <label>
          New password (12+ characters)
          <input type="password" autoComplete="new-password" required minLength={12} value={next} onChange={(e) => setNext(e.target.value)} />
        </label>
      </div>
      <button type="submit">Change password</button>
    </form>
  );
}
