// Starts the webhook receiver (webhook-receiver-main.ts) as a child process and reads what it received.
import { spawn } from 'node:child_process';
import { childLoader, projectModule } from '../helpers/child-node.js';
import { repoRoot } from '../sigma/corpus-helpers.js';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  signatureValid: boolean | null;
}

export interface Receiver {
  url: string;
  received(): Promise<Received[]>;
  /** The next `count` deliveries are answered 500. */
  failNext(count: number): Promise<void>;
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
    close: () => child.kill(),
  };
}
