// Starts the webhook receiver (webhook-receiver-main.ts) as a child process and reads what it received.
import { spawn } from 'node:child_process';
import { childLoader, projectModule } from '../helpers/child-node.js';
import { repoRoot } from '../sigma/corpus-helpers.js';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The body as sent (numbers with all their digits). */
  raw: string;
  signatureValid: boolean | null;
}

/** What the bad-receiver paths (/hang, /huge, /loop) saw. */
export interface ReceiverStats {
  hung: number;
  /** Requests to /loop (each answered with a redirect to itself). */
  loops: number;
  hugeAnswers: number;
  /** Bytes of huge answers the sockets took before they closed. */
  hugeBytesWritten: number;
  hugeBytesPlanned: number;
  /** Huge answers written to their end. */
  hugeCompleted: number;
}

export interface Receiver {
  url: string;
  received(): Promise<Received[]>;
  /** The next `count` deliveries are answered 500. */
  failNext(count: number): Promise<void>;
  stats(): Promise<ReceiverStats>;
  /** Holds every delivery unanswered until `release`. */
  hold(): Promise<void>;
  release(): Promise<void>;
  /** Deliveries held now, and the X-Vigil-Delivery of each held one whose sender went away. */
  held(): Promise<{ held: number; dropped: string[] }>;
  close(): void;
}

export async function startReceiver(secret?: string): Promise<Receiver> {
  const child = spawn(process.execPath, [...childLoader, projectModule('test/notifications/webhook-receiver-main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, WEBHOOK_RECEIVER: JSON.stringify({ secret }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening (\d+)/.exec(out);
      if (found) resolve(Number(found[1]));
    });
    child.on('exit', (code) => reject(new Error(`the webhook receiver exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    received: async () => (await (await fetch(`${base}/received`)).json()) as Received[],
    failNext: async (count) => void (await fetch(`${base}/fail?count=${count}`, { method: 'POST' })),
    stats: async () => (await (await fetch(`${base}/stats`)).json()) as ReceiverStats,
    hold: async () => void (await fetch(`${base}/hold`, { method: 'POST' })),
    release: async () => void (await fetch(`${base}/release`, { method: 'POST' })),
    held: async () => (await (await fetch(`${base}/held`)).json()) as { held: number; dropped: string[] },
    close: () => child.kill(),
  };
}
