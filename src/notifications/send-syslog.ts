// Syslog channels, for SIEMs that ingest from syslog: one line per alert in RFC 5424 (structured data
// holding the alert's fields) or in ArcSight CEF, over UDP, TCP or TLS (TCP and TLS framed by octet
// counting, RFC 6587), within the same 10 s bound as every other delivery.
import { createSocket, type SocketOptions } from 'node:dgram';
import { hostname } from 'node:os';
import { connect as tcpConnect, isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { guardedLookup, refusedLiteral } from './destinations.js';
import type { PostOutcome } from './http-post.js';
import { POST_TIMEOUT_MS } from './http-post.js';
import { plainText, type Message } from './messages.js';

export interface SyslogConfig {
  host: string;
  port: number;
  protocol: 'udp' | 'tcp' | 'tls';
  format: 'rfc5424' | 'cef';
}

/** Syslog severities (RFC 5424) of alert severities; facility 13 (log audit). */
const SYSLOG_SEVERITY: Record<string, number> = { critical: 2, high: 3, medium: 4, low: 5, informational: 6 };
const CEF_SEVERITY: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3, informational: 1 };
const FACILITY = 13;

const sdEscape = (text: string) => text.replace(/["\\\]]/g, (c) => `\\${c}`);
const cefHeader = (text: string) => text.replace(/[\\|]/g, (c) => `\\${c}`);
const cefValue = (text: string) => text.replace(/[\\=]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');

function fieldsOf(message: Message): Record<string, string> {
  if (message.kind === 'alert') {
    const a = message.alert;
    const fields: Record<string, string> = { alert_id: a.id, rule: a.rule_title, severity: a.severity, url: message.link };
    for (const name of ['host', 'user', 'source_ip', 'index_pattern'] as const) if (a[name]) fields[name] = String(a[name]);
    return fields;
  }
  if (message.kind === 'digest') return { rule: message.digest.rule_title, held: String(message.digest.held), hosts: String(message.digest.hosts), url: message.digest.link };
  return { test: 'true' };
}

const severityOf = (message: Message) => (message.kind === 'alert' ? message.alert.severity : 'informational');

/** One syslog line for the message. */
export function syslogLine(format: SyslogConfig['format'], message: Message, deliveryId: string, now = new Date()): string {
  const { subject } = plainText(message);
  const fields = fieldsOf(message);
  if (format === 'cef') {
    const pairs: [string, string | undefined][] = [
      ['rt', String(now.getTime())],
      ['externalId', deliveryId],
      ['cs1Label', 'alert_id'], ['cs1', fields.alert_id],
      ['cs2Label', 'rule'], ['cs2', fields.rule],
      ['cs3Label', 'index_pattern'], ['cs3', fields.index_pattern],
      ['dhost', fields.host],
      ['duser', fields.user],
      ['src', fields.source_ip],
      ['request', fields.url],
      ['cnt', fields.held],
    ];
    const extension = pairs.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${cefValue(v!)}`).join(' ');
    const pri = FACILITY * 8 + (SYSLOG_SEVERITY[severityOf(message)] ?? 6);
    return `<${pri}>CEF:0|Vigil|Vigil|1|${cefHeader(message.kind)}|${cefHeader(subject)}|${CEF_SEVERITY[severityOf(message)] ?? 1}|${extension}`;
  }
  const pri = FACILITY * 8 + (SYSLOG_SEVERITY[severityOf(message)] ?? 6);
  const data = Object.entries(fields).map(([k, v]) => `${k}="${sdEscape(v)}"`).join(' ');
  return `<${pri}>1 ${now.toISOString()} ${hostname() || '-'} vigil - ${message.kind} [vigil@32473 delivery_id="${deliveryId}" ${data}] ${subject}`;
}

export function sendSyslog(config: SyslogConfig, message: Message, deliveryId: string, allowPrivate: boolean): Promise<PostOutcome> {
  const line = syslogLine(config.format, message, deliveryId);
  const host = config.host.replace(/^\[|\]$/g, '');
  const refused = refusedLiteral(host, allowPrivate);
  if (refused) return Promise.resolve({ ok: false, error: refused, retryable: false });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(error ? { ok: false, error: error.message, retryable: (error as NodeJS.ErrnoException).code !== 'EACCES' } : { ok: true, error: null, retryable: false });
    };
    const timer = setTimeout(() => finish(new Error(`not sent within ${POST_TIMEOUT_MS / 1000} s`)), POST_TIMEOUT_MS);
    const lookup = guardedLookup(allowPrivate);
    if (config.protocol === 'udp') {
      const socket = createSocket({ type: isIP(host) === 6 ? 'udp6' : 'udp4', lookup: lookup as unknown as SocketOptions['lookup'] });
      socket.send(Buffer.from(line), config.port, host, (error) => {
        socket.close();
        finish(error ?? null);
      });
      return;
    }
    const framed = `${Buffer.byteLength(line)} ${line}`;
    const options = { host, port: config.port, lookup };
    const socket = config.protocol === 'tls' ? tlsConnect({ ...options, servername: isIP(host) ? undefined : host }) : tcpConnect(options);
    socket.once(config.protocol === 'tls' ? 'secureConnect' : 'connect', () => socket.end(framed, () => finish(null)));
    socket.once('error', (error) => finish(error));
  });
}
