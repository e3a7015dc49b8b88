// Sign-in: username and password, the two-factor code step when the account asks for it, and the
// single sign-on buttons of the enabled providers.
import { useEffect, useState, type FormEvent } from 'react';
import { api, errorText } from '../api';
import { useSession } from '../session';

interface Provider {
  id: string;
  name: string;
  login_url: string;
}

type LoginAnswer = { requires_2fa: true; temp_token: string } | { access_token: string; token_type: string };

export function LoginPage() {
  const { refresh } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [tempToken, setTempToken] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [providers, setProviders] = useState<Provider[]>([]);

  useEffect(() => {
    api
      .get<Provider[]>('/api/auth/sso/providers')
      .then(setProviders)
      .catch(() => setProviders([]));
  }, []);

  const signIn = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api.post<LoginAnswer>('/api/auth/login', { username, password }, { anonymous: true });
      if ('requires_2fa' in answer && answer.requires_2fa) {
        setTempToken(answer.temp_token);
        setPassword('');
      } else {
        await refresh();
      }
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const verify = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/auth/2fa/verify', { temp_token: tempToken, code: code.trim() }, { anonymous: true });
      await refresh();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login" id="main">
      <div className="login-card">
        <h1>Vigil</h1>
        <p className="muted">Detection rules and alert triage</p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {tempToken === null ? (
          <form onSubmit={signIn}>
            <label>
              Username
              <input name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} autoFocus />
            </label>
            <label>
              Password
              <input name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
            <button type="submit" disabled={busy}>
              Sign in
            </button>
          </form>
        ) : (
          <form onSubmit={verify}>
            <p>Enter the six-digit code from your authenticator app, or one of your recovery codes.</p>
            <label>
              Authentication code
              <input name="code" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} autoFocus />
            </label>
            <button type="submit" disabled={busy}>
              Verify
            </button>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setTempToken(null);
                setCode('');
              }}
            >
              Back
            </button>
          </form>
        )}
        {providers.length > 0 && tempToken === null && (
          <div className="sso">
            <p className="muted">or</p>
            {providers.map((p) => (
              <a key={p.id} className="button secondary" href={p.login_url}>
                Sign in with {p.name}
              </a>
            ))}
          </div>
        )}
      </div>
    </main>
  );
}
