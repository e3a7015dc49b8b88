// Where the fields a pipeline's event shaping adds come from in the event as it was stored: the inverse
// of the shapers (windows-event.ts, nxlog.ts, sentinel.ts), so a field a rule matched on in the shaped
// event can be shown at its place in the stored one. Promises: for each name the shaper gives a value
// that is not already a field of the stored event, the dotted paths (keys joined by '.') of the stored
// values it was taken from; names keep the shapers' precedence (the first part of the event to give a
// name is its origin). Pure; unknown shapes give an empty map.
import { isEvtxDump } from '../windows-event.js';
import { messageDetails } from './nxlog.js';
import { isObject, type EventObject } from './fields.js';
import type { Pipeline } from '../pipeline/pipeline.js';

export type FieldOrigins = Map<string, string[]>;

const strip = (k: string): string => k.replace(/ /g, '');

function give(out: FieldOrigins, name: string, path: string): void {
  if (!out.has(name)) out.set(name, [path]);
}

/** evtx_dump's nested event: System.X, System.X.#attributes.A (X_A), EventData.Name, UserData.E.Child. */
function evtxOrigins(event: EventObject): FieldOrigins {
  const out: FieldOrigins = new Map();
  const root = event.Event as EventObject;
  if (isObject(root.System)) {
    for (const [k, v] of Object.entries(root.System)) {
      const at = `Event.System.${k}`;
      if (isObject(v)) {
        if (isObject(v['#attributes'])) for (const a of Object.keys(v['#attributes'])) give(out, `${k}_${a}`, `${at}.#attributes.${a}`);
        if (Object.hasOwn(v, '#text')) give(out, k, `${at}.#text`);
      } else give(out, k, at);
    }
  }
  if (isObject(root.EventData)) {
    for (const [k, v] of Object.entries(root.EventData)) {
      if (k === '#attributes' && isObject(v)) for (const a of Object.keys(v)) give(out, `EventData_${a}`, `Event.EventData.#attributes.${a}`);
      else give(out, strip(k), `Event.EventData.${k}`);
    }
  }
  if (isObject(root.UserData)) {
    for (const [element, body] of Object.entries(root.UserData)) {
      if (!isObject(body)) continue;
      for (const [k, v] of Object.entries(body)) {
        if (k === '#attributes' && isObject(v)) {
          for (const a of Object.keys(v)) if (a !== 'xmlns') give(out, `${element}_${a}`, `Event.UserData.${element}.#attributes.${a}`);
        } else give(out, strip(k), `Event.UserData.${element}.${k}`);
      }
    }
  }
  return out;
}

/** NXLog: Provider_Name from SourceName, Computer from Hostname, classic PowerShell details and Data from Message. */
function nxlogOrigins(event: EventObject): FieldOrigins {
  const out: FieldOrigins = new Map();
  const add = (name: string, from: string) => {
    if (!Object.hasOwn(event, name) && event[from] !== undefined) give(out, name, from);
  };
  add('Provider_Name', 'SourceName');
  add('Computer', 'Hostname');
  if (event.Channel === 'Windows PowerShell' && typeof event.Message === 'string') {
    for (const [key] of messageDetails(event.Message)) add(key, 'Message');
    add('Data', 'Message');
  }
  return out;
}

/** Sentinel WindowsEvent rows: Provider_Name from Provider, EventData's entries (an object, or inside its JSON text). */
function sentinelOrigins(event: EventObject): FieldOrigins {
  const out: FieldOrigins = new Map();
  if (event.Provider !== undefined && !Object.hasOwn(event, 'Provider_Name')) give(out, 'Provider_Name', 'Provider');
  let data: unknown = event.EventData;
  const text = typeof data === 'string';
  if (text) {
    try {
      data = JSON.parse(data as string);
    } catch {
      return out;
    }
  }
  if (isObject(data)) {
    for (const k of Object.keys(data)) {
      const name = strip(k);
      if (!Object.hasOwn(event, name)) give(out, name, text ? 'EventData' : `EventData.${k}`);
    }
  }
  return out;
}

/** The origins of the fields the pipeline's shaping adds to `event` (empty when it adds none). */
export function fieldOriginsOf(pipeline: Pick<Pipeline, 'flattenEvtxDump' | 'eventShape'> | undefined, event: EventObject): FieldOrigins {
  if (pipeline?.eventShape === 'nxlog') return nxlogOrigins(event);
  if (pipeline?.eventShape === 'sentinel-windows-event') return sentinelOrigins(event);
  if (pipeline?.flattenEvtxDump && isEvtxDump(event)) return evtxOrigins(event);
  return new Map();
}
