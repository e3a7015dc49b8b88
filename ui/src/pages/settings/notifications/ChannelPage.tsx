// One notification channel (`/settings/notifications/<id>`): its health, the Test button, its settings
// form, deletion after a confirmation, and its delivery log; `/settings/notifications/new` creates one.
import { useEffect, useState } from 'react';
import { api, errorText } from '../../../api';
import { formatTime } from '../../../format';
import { Link, navigate } from '../../../router';
import { Message } from '../Message';
import { channelBody, draftOf, emptyDraft, type ChannelDraft } from './channel-draft';
import { ChannelForm } from './ChannelForm';
import { HealthBadge } from './ChannelList';
import { DeliveryLog } from './DeliveryLog';
import { TestButton } from './TestButton';
import type { Channel } from './types';

const BACK = '/settings/notifications';

function NewChannel() {
  const create = async (draft: ChannelDraft) => {
    const created = await api.post<Channel>('/api/notification_channels', channelBody(draft));
    navigate(`${BACK}/${created.id}`);
  };
  return (
    <div>
      <Link href={BACK}>← Notification channels</Link>
      <h2>New notification channel</h2>
      <ChannelForm initial={emptyDraft()} creating submit="Create channel" onSave={create} />
    </div>
  );
}

function StoredChannel({ id }: { id: string }) {
  const [channel, setChannel] = useState<Channel | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tested, setTested] = useState(0);
  // Read again after each test: the test moves the channel's health.
  useEffect(() => {
    api
      .get<Channel>(`/api/notification_channels/${id}`)
      .then(setChannel)
      .catch((e: unknown) => setError(errorText(e)));
  }, [id, tested]);
  const save = async (draft: ChannelDraft) => {
    const stored = await api.patch<Channel>(`/api/notification_channels/${id}`, channelBody(draft));
    setChannel(stored);
    return { done: 'Channel saved.', stored: draftOf(stored) };
  };
  const remove = async () => {
    if (!channel || !window.confirm(`Delete the channel ${channel.name} and its delivery log?`)) return;
    try {
      await api.delete(`/api/notification_channels/${id}`);
      navigate(BACK);
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <div>
      <Link href={BACK}>← Notification channels</Link>
      <Message text={error} error />
      {channel && (
        <>
          <div className="page-head">
            <h2>{channel.name}</h2>
            <HealthBadge channel={channel} />
            <div className="page-actions">
              <button type="button" className="danger" onClick={() => void remove()}>
                Delete channel
              </button>
            </div>
          </div>
          <p className="muted small">
            {channel.last_delivered_at ? `Last delivered ${formatTime(channel.last_delivered_at)}.` : 'Nothing delivered yet.'}
            {channel.failing_since ? ` Failing since ${formatTime(channel.failing_since)}.` : ''}
            {channel.last_error ? ` Last error: ${channel.last_error}` : ''}
          </p>
          <TestButton channelId={id} onDone={() => setTested((n) => n + 1)} />
          <ChannelForm key={channel.id} initial={draftOf(channel)} creating={false} submit="Save channel" onSave={save} />
          <DeliveryLog channelId={id} refresh={tested} />
        </>
      )}
    </div>
  );
}

export function ChannelPage({ id }: { id: string }) {
  return id === 'new' ? <NewChannel /> : <StoredChannel key={id} id={id} />;
}
