// NXLog's JSON of Windows events (im_msvistalog, as in the OTRF security datasets) reshaped to the flat
// names Sigma's Windows rules use. Promises: every field of the event is kept as it is; added, when the
// event does not already have them: `Provider_Name` from `SourceName` (NXLog's name of the provider),
// `Computer` from `Hostname`; and for the classic PowerShell channel (`Windows PowerShell`, events 400, 600,
// 800), whose details NXLog leaves inside the rendered `Message` only, every `Key=Value` line of the message
// as a field (`HostApplication`, `EngineVersion`, `HostVersion`, ...; values as written, a final CR
// dropped) and `Data` as the message text, which the SigmaHQ classic-PowerShell rules search
// (`Data|contains: 'HostApplication=...'`). Pure: the event given is never changed.
import { copyEvent, putField, type EventObject } from './fields.js';

const CLASSIC_POWERSHELL = 'Windows PowerShell';
/** `Key=Value` after optional leading white space; the key a word starting with a letter. */
const KEY_VALUE = /^[ \t]*([A-Za-z][A-Za-z0-9_]*)=(.*)$/;
/** Messages are rendered text of bounded length; longer ones are not parsed for details. */
const MAX_MESSAGE_CHARS = 1 << 20;

/** The `Key=Value` lines of a rendered message, in order (the first of a repeated key wins). */
export function messageDetails(message: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (message.length > MAX_MESSAGE_CHARS) return out;
  for (const line of message.split('\n')) {
    const m = KEY_VALUE.exec(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (m) out.push([m[1], m[2]]);
  }
  return out;
}

export function shapeNxlogEvent(event: EventObject): EventObject {
  const out = copyEvent(event);
  if (event.SourceName !== undefined) putField(out, 'Provider_Name', event.SourceName);
  if (event.Hostname !== undefined) putField(out, 'Computer', event.Hostname);
  if (event.Channel === CLASSIC_POWERSHELL && typeof event.Message === 'string') {
    for (const [key, value] of messageDetails(event.Message)) putField(out, key, value);
    putField(out, 'Data', event.Message);
  }
  return out;
}
