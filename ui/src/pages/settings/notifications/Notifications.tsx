// Settings → Notifications (admins): the channel list, or one channel when the URL names it.
import { ChannelList } from './ChannelList';
import { ChannelPage } from './ChannelPage';
import './notifications.css';

export function Notifications({ item }: { item: string | undefined }) {
  return item ? <ChannelPage id={decodeURIComponent(item)} /> : <ChannelList />;
}
