// Settings → users (admins): create, change role, disable/enable, reset two-factor login, delete.
import { useCallback, useEffect, useState } from 'react';
import { api, errorText, type Page } from '../../api';
import type { User } from '../../types';
import { ListTable } from './ListTable';
import { Message, type Outcome } from './Message';
import { PanelForm, PasswordField } from './PanelForm';

type ListedUser = User & { disabled: boolean };

const ROLES = ['viewer', 'analyst', 'admin'] as const;

function RoleOptions() {
  return ROLES.map((r) => (
    <option key={r} value={r}>
      {r}
    </option>
  ));
}

export function Users({ self }: { self: User }) {
  const [items, setItems] = useState<ListedUser[]>([]);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState('analyst');
  const [message, setMessage] = useState<Outcome | null>(null);
  const load = useCallback(() => {
    api
      .get<Page<ListedUser>>('/api/users?page_size=100')
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
  const create = () =>
    run(async () => {
      await api.post('/api/users', { username, password, role });
      setUsername('');
      setPassword('');
    }, 'User created.');
  return (
    <div>
      <h2>Users</h2>
      <Message text={message?.text} error={message?.error} />
      <ListTable caption="Users" columns={['Username', 'Role', 'Two-factor', 'State', 'Actions']}>
        {items.map((u) => (
          <tr key={u.id} className={u.disabled ? 'disabled' : undefined}>
            <td>{u.username}</td>
            <td>
              <select aria-label={`Role of ${u.username}`} value={u.role} disabled={u.id === self.id} onChange={(e) => void run(() => api.patch(`/api/users/${u.id}`, { role: e.target.value }))}>
                <RoleOptions />
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
                  <button type="button" className="tiny danger" onClick={() => window.confirm(`Delete the user ${u.username}?`) && void run(() => api.delete(`/api/users/${u.id}`))}>
                    Delete
                  </button>
                </div>
              )}
            </td>
          </tr>
        ))}
      </ListTable>
      <PanelForm label="New user" submit="Create user" onSubmit={create}>
        <label>
          Username
          <input value={username} required maxLength={100} autoComplete="off" onChange={(e) => setUsername(e.target.value)} />
        </label>
        <PasswordField label="Password (12+ characters)" autoComplete="new-password" minLength={12} value={password} onChange={setPassword} />
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value)}>
            <RoleOptions />
          </select>
        </label>
      </PanelForm>
    </div>
  );
}
