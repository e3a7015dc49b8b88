// Settings → the signed-in user's own password change (local accounts only; the others are signed out).
import { useState } from 'react';
import { api, errorText } from '../../api';
import { useSession } from '../../session';
import type { Outcome } from './Message';
import { PanelForm, PasswordField } from './PanelForm';

export function PasswordChange() {
  const { user } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [message, setMessage] = useState<Outcome | null>(null);
  if (user?.auth_method === 'sso') return null;
  const submit = async () => {
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
    <PanelForm label="Change password" heading="Password" level={2} submit="Change password" outcome={message} onSubmit={submit}>
      <PasswordField label="Current password" autoComplete="current-password" value={current} onChange={setCurrent} />
      <PasswordField label="New password (12+ characters)" autoComplete="new-password" minLength={12} value={next} onChange={setNext} />
    </PanelForm>
  );
}
