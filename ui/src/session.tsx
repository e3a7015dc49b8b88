// The signed-in user: read from GET /api/auth/session at start and after signing in (the session
// cookie decides; a signed-out visit gets a 200 with no user, so the browser logs no failed request),
// cleared on logout or when the API answers 401.
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, ApiError, forgetCsrfToken, setUnauthorizedHandler } from './api';
import type { User } from './types';

interface SessionState {
  user: User | null;
  loading: boolean;
  refresh(): Promise<void>;
  logout(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null>(null);
  const [loading, setLoading] = useState(true);

  const refresh = useCallback(async () => {
    try {
      setUser((await api.get<{ signed_in: boolean; user: User | null }>('/api/auth/session')).user);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) console.warn('could not read the session', error);
      setUser(null);
    } finally {
      setLoading(false);
    }
  }, []);

  const logout = useCallback(async () => {
    try {
      await api.post('/api/auth/logout');
    } finally {
      forgetCsrfToken();
      setUser(null);
    }
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => setUser(null));
    void refresh();
  }, [refresh]);

  return <SessionContext.Provider value={{ user, loading, refresh, logout }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

export const canTriage = (user: User | null) => user?.role === 'admin' || user?.role === 'analyst';
export const isAdmin = (user: User | null) => user?.role === 'admin';
