// The application shell: login when signed out, otherwise the navigation and the page for the URL.
import { useEffect, useState } from 'react';
import { Link, navigate, useLocation } from './router';
import { useSession } from './session';
import { applyTheme, storedTheme, type Theme } from './theme';
import { LoginPage } from './pages/Login';
import { AlertsPage } from './pages/Alerts';
import { AlertDetailPage } from './pages/AlertDetail';
import { RulesPage } from './pages/Rules';
import { RulePage } from './pages/RuleEditor';
import { DashboardPage } from './pages/Dashboard';
import { SettingsPage } from './pages/Settings';

const NAV = [
  { href: '/dashboard', label: 'Dashboard' },
  { href: '/alerts', label: 'Alerts' },
  { href: '/rules', label: 'Rules' },
  { href: '/settings', label: 'Settings' },
];

function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => applyTheme(theme), [theme]);
  return (
    <label className="theme-toggle">
      <span className="visually-hidden">Theme</span>
      <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)} aria-label="Theme">
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function Page({ path }: { path: string }) {
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return <Redirect to="/alerts" />;
  switch (parts[0]) {
    case 'alerts':
      return parts[1] ? <AlertDetailPage id={decodeURIComponent(parts[1])} /> : <AlertsPage />;
    case 'rules':
      return parts[1] ? <RulePage id={parts[1] === 'new' ? null : decodeURIComponent(parts[1])} /> : <RulesPage />;
    case 'dashboard':
      return <DashboardPage />;
    case 'settings':
      return <SettingsPage tab={parts[1] ?? 'index-patterns'} />;
    default:
      return (
        <section>
          <h1>Page not found</h1>
          <p>
            <Link href="/alerts">Go to the alerts</Link>
          </p>
        </section>
      );
  }
}

export function App() {
  const { user, loading, logout } = useSession();
  const { path } = useLocation();

  useEffect(() => applyTheme(storedTheme()), []);

  if (loading) return <p className="loading" role="status">Loading…</p>;
  if (!user) return <LoginPage />;

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/alerts" className="brand">
          Vigil
        </Link>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={path.startsWith(item.href) ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="topbar-end">
          <ThemeToggle />
          <span className="whoami">
            {user.username} <span className="muted">({user.role})</span>
          </span>
          <button type="button" className="secondary" onClick={() => void logout().then(() => navigate('/', { force: true }))}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page path={path} />
      </main>
    </div>
  );
}
