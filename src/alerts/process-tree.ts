// The process ancestry of an alert, built from process-start events of its host: the alert's process,
// its parents up to the oldest one known, and its children down a few generations. Processes are linked
// by GUID when the events carry one (Sysmon's ProcessGuid, ECS process.entity_id); otherwise by process
// id, the parent being the latest start of a process with the parent's id at or before the child's
// start (ids are reused, so a start after the child cannot be its parent). Promises: at most MAX_NODES
// nodes, MAX_ANCESTORS parents and MAX_CHILD_DEPTH generations of children, `truncated` saying when
// any bound cut the tree; a parent known only from its child's fields is a node without events; the
// nodes come in tree order (each after its parent). Pure.
import type { ProcessRecord } from './process-record.js';

export const MAX_NODES = 200;
export const MAX_ANCESTORS = 16;
export const MAX_CHILD_DEPTH = 6;

export interface ProcessEvent {
  record: ProcessRecord;
  hash: string;
  time: Date;
}

export interface ProcessNode {
  key: string;
  parent_key: string | null;
  depth: number;
  process_guid?: string;
  process_id: number | null;
  parent_process_guid?: string;
  parent_process_id: number | null;
  image: string | null;
  command_line: string | null;
  user: string | null;
  event_time: string | null;
  event_ids: string[];
  is_alert_process: boolean;
}

export interface ProcessTree {
  root: string | null;
  alert_process: string | null;
  nodes: ProcessNode[];
  truncated: boolean;
}

interface Instance {
  key: string;
  record: ProcessRecord;
  time: Date | null;
  hashes: string[];
}

const keyOf = (e: ProcessEvent): string => (e.record.guid ? `guid:${e.record.guid}` : `pid:${e.record.pid}@${e.hash}`);

/** Process instances of the start events: one per GUID (its events gathered), one per start when only ids are known. */
function instancesOf(events: ProcessEvent[]): Map<string, Instance> {
  const out = new Map<string, Instance>();
  for (const e of events) {
    if (!e.record.creation) continue;
    const key = keyOf(e);
    const known = out.get(key);
    if (known) {
      if (!known.hashes.includes(e.hash)) known.hashes.push(e.hash);
      continue;
    }
    out.set(key, { key, record: e.record, time: e.time, hashes: [e.hash] });
  }
  return out;
}

class Linker {
  private readonly byGuid = new Map<string, Instance>();
  /** Starts by process id, oldest first. */
  private readonly byPid = new Map<number, Instance[]>();

  constructor(readonly instances: Map<string, Instance>) {
    for (const i of instances.values()) {
      if (i.record.guid) this.byGuid.set(i.record.guid, i);
      if (i.record.pid !== null) {
        const list = this.byPid.get(i.record.pid) ?? [];
        list.push(i);
        this.byPid.set(i.record.pid, list);
      }
    }
    for (const list of this.byPid.values()) list.sort((a, b) => (a.time?.getTime() ?? 0) - (b.time?.getTime() ?? 0));
  }

  /** The latest start of process `pid` at or before `at`. */
  startOf(pid: number, at: Date | null): Instance | undefined {
    const list = this.byPid.get(pid);
    if (!list) return undefined;
    const limit = at?.getTime() ?? Infinity;
    let found: Instance | undefined;
    for (const i of list) if ((i.time?.getTime() ?? 0) <= limit) found = i;
    return found;
  }

  parentOf(child: Instance): Instance | undefined {
    const { parentGuid, parentPid } = child.record;
    if (parentGuid) {
      const parent = this.byGuid.get(parentGuid);
      if (parent) return parent;
    }
    if (parentPid === null) return undefined;
    const parent = this.startOf(parentPid, child.time);
    // A start event with a GUID names its parent's GUID: a start with another GUID is another process.
    if (parent && parentGuid && parent.record.guid && parent.record.guid !== parentGuid) return undefined;
    return parent === child ? undefined : parent;
  }
}

/** The instance a parent is known as from its child's fields alone (no start event of it was found). */
function knownFromChild(child: Instance): Instance | null {
  const r = child.record;
  if (r.parentGuid === null && r.parentPid === null) return null;
  return {
    key: r.parentGuid ? `guid:${r.parentGuid}` : `pid:${r.parentPid}@parent-of:${child.key}`,
    record: { guid: r.parentGuid, pid: r.parentPid, parentGuid: null, parentPid: null, image: r.parentImage, parentImage: null, commandLine: r.parentCommandLine, parentCommandLine: null, user: null, creation: false },
    time: null,
    hashes: [],
  };
}

/** The instance of the alert's own process: its start event when found, else the alert's event itself. */
function alertInstance(linker: Linker, alert: ProcessEvent): Instance {
  const { record } = alert;
  if (record.guid) {
    const started = linker.instances.get(`guid:${record.guid}`);
    if (started) {
      if (!started.hashes.includes(alert.hash)) started.hashes.push(alert.hash);
      return started;
    }
  } else if (record.pid !== null) {
    const own = linker.instances.get(keyOf(alert)) ?? linker.startOf(record.pid, alert.time);
    if (own) {
      if (!own.hashes.includes(alert.hash)) own.hashes.push(alert.hash);
      return own;
    }
  }
  const instance: Instance = { key: record.guid ? `guid:${record.guid}` : `pid:${record.pid}@${alert.hash}`, record, time: record.creation ? alert.time : null, hashes: [alert.hash] };
  linker.instances.set(instance.key, instance);
  return instance;
}

function nodeOf(i: Instance, parent: string | null, depth: number, isAlert: boolean): ProcessNode {
  const r = i.record;
  return {
    key: i.key,
    parent_key: parent,
    depth,
    ...(r.guid ? { process_guid: r.guid } : {}),
    process_id: r.pid,
    ...(r.parentGuid ? { parent_process_guid: r.parentGuid } : {}),
    parent_process_id: r.parentPid,
    image: r.image,
    command_line: r.commandLine,
    user: r.user,
    event_time: i.time ? i.time.toISOString() : null,
    event_ids: i.hashes,
    is_alert_process: isAlert,
  };
}

/** The tree around the alert's process (`alert`: the alert's event) from the host's process events. */
export function buildProcessTree(alert: ProcessEvent, events: ProcessEvent[]): ProcessTree {
  if (alert.record.guid === null && alert.record.pid === null) return { root: null, alert_process: null, nodes: [], truncated: false };
  const linker = new Linker(instancesOf(events));
  const self = alertInstance(linker, alert);
  let truncated = false;

  // Parents, nearest first.
  const ancestors: Instance[] = [];
  const seen = new Set<string>([self.key]);
  let at: Instance = self;
  for (;;) {
    const parent = linker.parentOf(at) ?? knownFromChild(at);
    if (!parent || seen.has(parent.key)) break;
    if (ancestors.length === MAX_ANCESTORS) {
      truncated = true;
      break;
    }
    ancestors.push(parent);
    seen.add(parent.key);
    if (parent.hashes.length === 0) break;
    at = parent;
  }

  // Children of every start, by the parent each links to.
  const children = new Map<string, Instance[]>();
  for (const i of linker.instances.values()) {
    if (i === self && !i.record.creation) continue;
    const parent = linker.parentOf(i);
    if (!parent) continue;
    const list = children.get(parent.key) ?? [];
    list.push(i);
    children.set(parent.key, list);
  }
  for (const list of children.values()) list.sort((a, b) => (a.time?.getTime() ?? 0) - (b.time?.getTime() ?? 0) || a.key.localeCompare(b.key));

  const nodes: ProcessNode[] = [];
  const chain = [...ancestors].reverse();
  chain.forEach((i, n) => nodes.push(nodeOf(i, n === 0 ? null : chain[n - 1].key, n, false)));
  const selfDepth = chain.length;
  nodes.push(nodeOf(self, chain.length ? chain[chain.length - 1].key : null, selfDepth, true));

  // Children depth first, so each subtree follows its parent.
  const visit = (parent: Instance, generation: number): void => {
    const kids = (children.get(parent.key) ?? []).filter((k) => !seen.has(k.key));
    if (kids.length === 0) return;
    if (generation > MAX_CHILD_DEPTH) {
      truncated = true;
      return;
    }
    for (const kid of kids) {
      if (nodes.length >= MAX_NODES) {
        truncated = true;
        return;
      }
      seen.add(kid.key);
      nodes.push(nodeOf(kid, parent.key, selfDepth + generation, false));
      visit(kid, generation + 1);
    }
  };
  visit(self, 1);
  return { root: nodes[0].key, alert_process: self.key, nodes, truncated };
}
