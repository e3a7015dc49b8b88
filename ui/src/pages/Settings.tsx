// Settings: the section tabs and the section for the URL (`/settings/<section>`, and
// `/settings/index-patterns/<id>` for one pattern's field mappings and field catalogue,
// `/settings/notifications/<id>` for one notification channel). Each
// section lives in its own file under ./settings/.
import { Link, useLocation } from '../router';
import { isAdmin, useSession } from '../session';
import { Feeds } from './Feeds';
import { ApiKeys } from './settings/ApiKeys';
import { Audit } from './settings/Audit';
import { FieldMappings } from './settings/FieldMappings';
import { IndexPatterns } from './settings/IndexPatterns';
import { Notifications } from './settings/notifications/Notifications';
import { PasswordChange } from './settings/PasswordChange';
import { TriageSetting } from './settings/TriageSetting';
import { TwoFactor } from './settings/TwoFactor';
import { Users } from './settings/Users';

const TABS = [
  { id: 'index-patterns', label: 'Index patterns' },
  { id: 'api-keys', label: 'API keys' },
  { id: 'threat-intel', label: 'Threat intel' },
  { id: 'security', label: 'Your account' },
  { id: 'users', label: 'Users', admin: true },
  { id: 'notifications', label: 'Notifications', admin: true },
  { id: 'audit', label: 'Audit log', admin: true },
];

export function SettingsPage({ tab }: { tab: string }) {
  const { user } = useSession();
  const { path } = useLocation();
  const admin = isAdmin(user);
  const tabs = TABS.filter((t) => !t.admin || admin);
  // The part after the section: an index pattern's id.
  const item = path.split('/').filter(Boolean)[2];
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <nav className="tabs" aria-label="Settings sections">
        {tabs.map((t) => (
          <Link key={t.id} href={`/settings/${t.id}`} className={tab === t.id ? 'active' : ''} aria-current={tab === t.id && !item ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      {tab === 'index-patterns' && (item ? <FieldMappings key={item} id={decodeURIComponent(item)} admin={admin} /> : <IndexPatterns admin={admin} />)}
      {tab === 'api-keys' && <ApiKeys admin={admin} />}
      {tab === 'threat-intel' && <Feeds admin={admin} />}
      {tab === 'security' && (
        <>
          <TwoFactor />
          <PasswordChange />
          <TriageSetting />
        </>
      )}
      {tab === 'users' && admin && <Users self={user!} />}
      {tab === 'notifications' && admin && <Notifications item={item} />}
      {tab === 'audit' && admin && <Audit />}
    </section>
  );
}
