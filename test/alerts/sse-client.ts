// A small Server-Sent Events reader over a real HTTP connection, for the alert stream tests: it parses
// messages as they arrive and lets a test wait for the next one that matches, or for the end.
import http from 'node:http';
import type { Service } from '../../src/server.js';

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  /** Comment lines of the block (heartbeats). */
  comments: string[];
}

export interface SseResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The whole body when the answer was not a stream (an error). */
  body?: string;
  stream?: SseStream;
}

/** The base URL of a service listening on a free port of 127.0.0.1. */
export async function listening(service: Service): Promise<string> {
  return service.app.listen({ port: 0, host: '127.0.0.1' });
}

export class SseStream {
  private readonly messages: SseMessage[] = [];
  private buffer = '';
  private waiters: (() => void)[] = [];
  ended = false;

  constructor(private readonly response: http.IncomingMessage) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.buffer += chunk;
      let cut: number;
      while ((cut = this.buffer.indexOf('\n\n')) >= 0) {
        this.messages.push(parse(this.buffer.slice(0, cut)));
        this.buffer = this.buffer.slice(cut + 2);
      }
      this.notify();
    });
    const finish = () => {
      this.ended = true;
      this.notify();
    };
    response.on('end', finish);
    response.on('close', finish);
    response.on('error', finish);
  }

  /** Removes and answers the messages before and including the first one matching `match`. */
  async until(match: (message: SseMessage) => boolean, what = 'a matching message'): Promise<SseMessage[]> {
    for (;;) {
      const at = this.messages.findIndex(match);
      if (at >= 0) return this.messages.splice(0, at + 1);
      if (this.ended) {
        const left = this.messages.map((m) => m.event ?? (m.retry ? 'retry' : 'comment'));
        throw new Error(`the stream ended before ${what}; ${left.length} messages left, the last: ${left.slice(-5).join(', ')}`);
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Waits for the next event named `event` (skipping heartbeats and others), answering the events before it too. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- decoded JSON, read field by field in assertions
  async nextEvent(event: string): Promise<{ skipped: SseMessage[]; message: SseMessage; data: any }> {
    const taken = await this.until((m) => m.event === event, `event ${event}`);
    const message = taken[taken.length - 1];
    return { skipped: taken.slice(0, -1), message, data: JSON.parse(message.data ?? 'null') };
  }

  /** Resolves when the server ends the stream; answers the messages not yet taken. */
  async end(): Promise<SseMessage[]> {
    while (!this.ended) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.messages.splice(0);
  }

  close(): void {
    this.response.destroy();
  }

  /** Stops reading from the connection (a reader that fell behind), until `resume`. */
  pause(): void {
    this.response.pause();
  }

  resume(): void {
    this.response.resume();
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

function parse(block: string): SseMessage {
  const message: SseMessage = { comments: [] };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      message.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id' || field === 'event' || field === 'retry') message[field] = value;
    else if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
  }
  return message;
}

/** Opens GET `path` on `base` with the given headers; a 200 answer gives a stream, anything else its body. */
export function openStream(base: string, path: string, headers: Record<string, string>): Promise<SseResponse> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(path, base), { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      const status = response.statusCode ?? 0;
      if (status === 200) {
        resolve({ status, headers: response.headers, stream: new SseStream(response) });
        return;
      }
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status, headers: response.headers, body }));
    });
    request.on('error', reject);
  });
}
