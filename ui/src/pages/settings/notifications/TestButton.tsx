// The Test button of a channel: sends a test message now and says how it went (delivered with the
// receiver's status, or the error), announced to screen readers.
import { useState } from 'react';
import { api, errorText } from '../../../api';
import type { TestOutcome } from './types';

export function TestButton({ channelId, onDone }: { channelId: string; onDone(): void }) {
  const [sending, setSending] = useState(false);
  const [outcome, setOutcome] = useState<{ text: string; ok: boolean } | null>(null);
  const send = async () => {
    setSending(true);
    setOutcome(null);
    try {
      const answer = await api.post<TestOutcome>(`/api/notification_channels/${channelId}/test`);
      const status = answer.status_code !== null ? ` (status ${answer.status_code})` : '';
      setOutcome(
        answer.delivered
          ? { text: `Test message delivered${status} in ${answer.duration_ms} ms.`, ok: true }
          : { text: `Test message failed${status}: ${answer.error ?? 'no answer'}`, ok: false },
      );
      onDone();
    } catch (e) {
      setOutcome({ text: `Test message not sent: ${errorText(e)}`, ok: false });
    } finally {
      setSending(false);
    }
  };
  return (
    <div className="button-row">
      <button type="button" className="secondary" disabled={sending} onClick={() => void send()}>
        {sending ? 'Sending test…' : 'Test'}
      </button>
      <span role="status" className={outcome ? (outcome.ok ? 'ok' : 'error') : undefined}>
        {outcome?.text}
      </span>
    </div>
  );
}
