// Who owns alerts: "Assign to me" and "Unassign" for every analyst and admin, and for admins (who may
// list users) a choice of any active analyst or admin. Used by the alert detail and the bulk actions.
import { useEffect, useState } from 'react';
import { api, type Page } from '../api';
import { isAdmin, useSession } from '../session';
import type { User } from '../types';

interface Props {
  /** The owner now: a user id, null when unassigned, undefined when unknown (many alerts). */
  current?: string | null;
  disabled?: boolean;
  onAssign(assignee: string | null): void;
}

/** The users an admin may give alerts to (viewers and disabled accounts cannot own alerts). */
function useAssignableUsers(enabled: boolean): User[] {
  const [users, setUsers] = useState<User[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let cancelled = false;
    api
      .get<Page<User & { disabled: boolean }>>('/api/users?page_size=100')
      .then((page) => !cancelled && setUsers(page.items.filter((u) => !u.disabled && u.role !== 'viewer')))
      .catch((e: unknown) => console.warn('could not list users', e));
    return () => {
      cancelled = true;
    };
  }, [enabled]);
  return users;
}

export function AssigneeChoice({ current, disabled, onAssign }: Props) {
  const { user } = useSession();
  const admin = isAdmin(user);
  const users = useAssignableUsers(admin);
  const [chosen, setChosen] = useState('');
  return (
    <div className="button-row assignee-choice">
      {current !== user?.id && (
        <button type="button" className="secondary" disabled={disabled} onClick={() => user && onAssign(user.id)}>
          Assign to me
        </button>
      )}
      {current !== null && (
        <button type="button" className="secondary" disabled={disabled} onClick={() => onAssign(null)}>
          Unassign
        </button>
      )}
      {admin && users.length > 0 && (
        <>
          <label>
            Assign to
            <select value={chosen} onChange={(e) => setChosen(e.target.value)}>
              <option value="">Choose a user</option>
              {users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username} ({u.role})
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="secondary" disabled={disabled || !chosen} onClick={() => onAssign(chosen)}>
            Assign
          </button>
        </>
      )}
    </div>
  );
}
