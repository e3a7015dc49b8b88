// Settings → the signed-in user's own triage setting: alerts they acknowledge without an owner become
// theirs (analysts and admins; a viewer triages nothing).
import { useState } from 'react';
import { api, errorText } from '../../api';
import { canTriage, useSession } from '../../session';
import type { User } from '../../types';
import { Message, type Outcome } from './Message';

export function TriageSetting() {
  const { user, refresh } = useSession();
  const [on, setOn] = useState(user?.assign_on_acknowledge === true);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Outcome | null>(null);
  if (!canTriage(user)) return null;
  const save = async (next: boolean) => {
    setBusy(true);
    setOn(next);
    try {
      await api.patch<User>('/api/auth/me', { assign_on_acknowledge: next });
      await refresh();
      setMessage({ text: next ? 'Alerts you acknowledge without an owner now become yours.' : 'Acknowledging no longer assigns alerts to you.' });
    } catch (e) {
      setOn(!next);
      setMessage({ text: errorText(e), error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="panel" aria-labelledby="triage-setting-title">
      <h2 id="triage-setting-title">Triage</h2>
      <Message text={message?.text} error={message?.error} />
      <label className="inline">
        <input type="checkbox" checked={on} disabled={busy} onChange={(e) => void save(e.target.checked)} />
        Assign alerts to me when I acknowledge them (alerts someone already owns stay theirs)
      </label>
    </section>
  );
}
