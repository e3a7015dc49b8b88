// Settings → two-factor login of the signed-in user: set up with a QR code, confirm with a code (the
// recovery codes are shown once), turn off with password and code.
import { useState, type FormEvent } from 'react';
import { api, errorText } from '../../api';
import { CopyBlock } from '../../components/CopyBlock';
import { QrCode } from '../../components/QrCode';
import { useSession } from '../../session';
import { Message, type Outcome } from './Message';
import { PanelForm, PasswordField } from './PanelForm';

export function TwoFactor() {
  const { user, refresh } = useSession();
  const [setup, setSetup] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [message, setMessage] = useState<Outcome | null>(null);

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
  const disable = async () => {
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
      <Message text={message?.text} error={message?.error} />
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
        <PanelForm label="Turn off two-factor login" heading={null} submit="Turn off two-factor login" submitClass="danger" intro={<p>Two-factor login is on for your account.</p>} onSubmit={disable}>
          <PasswordField label="Password" autoComplete="current-password" value={password} onChange={setPassword} />
          <label>
            Current code
            <input inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
          </label>
        </PanelForm>
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
