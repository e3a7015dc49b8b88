// Raising a chunk's alerts under each rule's suppression. A match of a rule without suppression is an
// alert, as ever. A match of a rule with suppression belongs to a group (the values of its group-by
// fields): while the group has an open alert younger than the window, the match is added to it (one
// more occurrence, last seen now, the event linked); otherwise it raises the group's new alert. Each
// group is locked for the transaction, so two writers never open two alerts for one group, and an
// event linked once (or an alert's own event) is never counted again when it is re-delivered.
import { createHash, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { makeAccessor, type Accessor } from '../sigma/index.js';
import { insertAlertRows, insertAlerts, type NewAlert } from '../alerts/store.js';
import { addOccurrences, alreadyRaised, linkEvents, lockGroups, openAlertsOf, type LinkedEvent } from '../alerts/suppression-store.js';
import { suppressionsOf } from '../rules/suppression/store.js';
import { firstValue } from './detection.js';

/** An alert draft and the event as its rule saw it (where group-by fields are read). */
export interface AlertDraft {
  alert: NewAlert;
  event: object;
}

interface Group {
  ruleId: string;
  key: string;
  windowSeconds: number;
  values: Record<string, unknown>;
  alerts: NewAlert[];
}

/** The alert entities a group may name, read from the draft rather than the event. */
const ENTITIES: Record<string, (a: NewAlert) => string | undefined> = { host: (a) => a.host, user: (a) => a.user, source_ip: (a) => a.sourceIp };

const accessors = new Map<string, Accessor>();
function accessorOf(field: string): Accessor {
  let accessor = accessors.get(field);
  if (!accessor) {
    if (accessors.size > 1000) accessors.clear();
    accessor = makeAccessor(field);
    accessors.set(field, accessor);
  }
  return accessor;
}

/** The values of the group-by fields (null where the match has none): entities, a correlation's group, or the event. */
function groupValues(fields: string[], { alert, event }: AlertDraft): Record<string, unknown> {
  const correlationGroup = (alert.correlation as { group?: Record<string, unknown> } | undefined)?.group;
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const entity = ENTITIES[field];
    if (entity) values[field] = entity(alert) ?? null;
    else if (correlationGroup && field in correlationGroup) values[field] = correlationGroup[field] ?? null;
    else values[field] = firstValue([accessorOf(field)], event) ?? null;
  }
  return values;
}

const groupId = (ruleId: string, key: string) => `${ruleId}:${key}`;

/** Raises the drafts' alerts (suppression applied); answers how many alerts were created. */
export async function raiseAlerts(tx: Queryable, drafts: AlertDraft[]): Promise<number> {
  if (drafts.length === 0) return 0;
  const settings = await suppressionsOf(tx, [...new Set(drafts.map((d) => d.alert.ruleId))]);
  if (settings.size === 0) return insertAlerts(tx, drafts.map((d) => d.alert));
  const plain: NewAlert[] = [];
  const groups = new Map<string, Group>();
  for (const draft of drafts) {
    const setting = settings.get(draft.alert.ruleId);
    if (!setting) {
      plain.push(draft.alert);
      continue;
    }
    const values = groupValues(setting.group_by, draft);
    const key = createHash('sha256').update(JSON.stringify(setting.group_by.map((f) => values[f]))).digest('hex');
    const id = groupId(draft.alert.ruleId, key);
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { ruleId: draft.alert.ruleId, key, windowSeconds: setting.window_seconds, values, alerts: [] }));
    group.alerts.push(draft.alert);
  }
  const created = plain.length > 0 ? await insertAlerts(tx, plain) : 0;
  return created + (await fold(tx, [...groups.values()]));
}

const linkOf = (alertId: string, a: NewAlert): LinkedEvent => ({ alertId, ruleId: a.ruleId, indexPatternId: a.indexPatternId, eventHash: a.eventHash, eventTime: a.eventTime });

/** Folds each group's matches into its open alert, or opens one with the first; answers how many alerts were created. */
async function fold(tx: Queryable, groups: Group[]): Promise<number> {
  await lockGroups(tx, groups.map((g) => groupId(g.ruleId, g.key)));
  const raised = await alreadyRaised(tx, groups.flatMap((g) => g.alerts));
  const open = await openAlertsOf(tx, groups);
  const fresh: { alert: NewAlert; pending: NewAlert[] }[] = [];
  const links: LinkedEvent[] = [];
  for (const group of groups) {
    // An event that raised an alert of this rule already is a re-delivery: it adds nothing.
    const pending = group.alerts.filter((a) => !raised.has(`${a.ruleId}:${a.eventHash}`));
    if (pending.length === 0) continue;
    const openId = open.get(groupId(group.ruleId, group.key));
    if (openId) {
      for (const a of pending) links.push(linkOf(openId, a));
      continue;
    }
    const alert: NewAlert = { ...pending[0], id: randomUUID(), suppression: { key: group.key, group: group.values } };
    fresh.push({ alert, pending });
  }
  const createdIds = new Set(await insertAlertRows(tx, fresh.map((f) => f.alert)));
  let created = createdIds.size;
  const unplaced: NewAlert[] = [];
  for (const { alert, pending } of fresh) {
    // The group's lock makes this unreachable in practice; should the first match not insert, no match is lost.
    if (!createdIds.has(alert.id!)) unplaced.push(...pending);
    else for (const a of pending) links.push(linkOf(alert.id!, a));
  }
  if (unplaced.length > 0) created += await insertAlerts(tx, unplaced);
  const added = await linkEvents(tx, links);
  // A new alert's own event is its first occurrence, already counted.
  for (const id of createdIds) {
    const n = (added.get(id) ?? 1) - 1;
    if (n > 0) added.set(id, n);
    else added.delete(id);
  }
  await addOccurrences(tx, added);
  return created;
}
