// What an event says about a process, read the same way for every event shape the presets produce
// (the event as its pattern's preset shapes it): Sysmon (flat, or under winlog.event_data. as Winlogbeat
// sends it), Security 4688 (where NewProcessId is the new process and ProcessId its creator), and ECS
// (process.pid, process.entity_id, process.parent.*). Promises: ids as the event gives them (a GUID as
// text, lowercased; a process id as an integer, hex `0x…` ids of 4688 decoded); `creation` only for an
// event that names the process's parent (a process start); null for what the event does not say. Pure.
import { makeAccessor, type Accessor } from '../sigma/index.js';

export interface ProcessRecord {
  guid: string | null;
  pid: number | null;
  parentGuid: string | null;
  parentPid: number | null;
  image: string | null;
  parentImage: string | null;
  commandLine: string | null;
  parentCommandLine: string | null;
  user: string | null;
  /** The event records the start of the process: it names the parent. */
  creation: boolean;
}

const readers = (paths: string[]): Accessor[] => paths.map(makeAccessor);
const raw = (name: string) => [name, `winlog.event_data.${name}`];

const GUID = readers([...raw('ProcessGuid'), 'process.entity_id']);
const PARENT_GUID = readers([...raw('ParentProcessGuid'), 'process.parent.entity_id']);
const ECS_PID = readers(['process.pid']);
const ECS_PARENT_PID = readers(['process.parent.pid']);
const NEW_PROCESS_ID = readers(raw('NewProcessId'));
const PROCESS_ID = readers(raw('ProcessId'));
const PARENT_PROCESS_ID = readers(raw('ParentProcessId'));
const IMAGE = readers([...raw('Image'), ...raw('NewProcessName'), 'process.executable']);
const PARENT_IMAGE = readers([...raw('ParentImage'), ...raw('ParentProcessName'), 'process.parent.executable']);
const COMMAND_LINE = readers([...raw('CommandLine'), 'process.command_line']);
const PARENT_COMMAND_LINE = readers([...raw('ParentCommandLine'), 'process.parent.command_line']);
const USER = readers([...raw('User'), 'user.name', ...raw('SubjectUserName')]);

/** The first scalar value of the first field that has one. */
function first(event: object, fields: Accessor[]): string | number | null {
  for (const field of fields) {
    let found: string | number | null = null;
    field.each(event, (v) => {
      if (typeof v === 'string' && v !== '' && v !== '-') found = v;
      else if (typeof v === 'number' && Number.isFinite(v)) found = v;
      return found !== null;
    });
    if (found !== null) return found;
  }
  return null;
}

const text = (v: string | number | null): string | null => (v === null ? null : String(v));

/** A process id: an integer, its decimal text, or 4688's hexadecimal `0x…` text. */
export function processId(v: string | number | null): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  const n = /^0x[0-9a-f]+$/i.test(s) ? parseInt(s.slice(2), 16) : /^\d+$/.test(s) ? Number(s) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

/** A GUID as text, braces kept, lowercased (Sysmon writes them in either case). */
const guidOf = (v: string | number | null): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().toLowerCase() : null);

export function processRecordOf(event: object): ProcessRecord {
  let pid: number | null;
  let parentPid: number | null;
  const ecs = processId(first(event, ECS_PID));
  const created = processId(first(event, NEW_PROCESS_ID));
  if (ecs !== null) {
    pid = ecs;
    parentPid = processId(first(event, ECS_PARENT_PID));
  } else if (created !== null) {
    // Security 4688: ProcessId is the creator's.
    pid = created;
    parentPid = processId(first(event, PROCESS_ID));
  } else {
    pid = processId(first(event, PROCESS_ID));
    parentPid = processId(first(event, PARENT_PROCESS_ID));
  }
  const guid = guidOf(first(event, GUID));
  const parentGuid = guidOf(first(event, PARENT_GUID));
  return {
    guid,
    pid,
    parentGuid,
    parentPid,
    image: text(first(event, IMAGE)),
    parentImage: text(first(event, PARENT_IMAGE)),
    commandLine: text(first(event, COMMAND_LINE)),
    parentCommandLine: text(first(event, PARENT_COMMAND_LINE)),
    user: text(first(event, USER)),
    creation: (guid !== null || pid !== null) && (parentGuid !== null || parentPid !== null),
  };
}
