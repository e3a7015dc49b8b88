// A dedicated OpenSearch node for one test file (scripts/opensearch.sh on free ports, its own data
// folder), which the test may kill outright and start again on the same data: for tests that take the
// cluster down, which the shared node must never be.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = resolve(fileURLToPath(import.meta.url), '../../../scripts/opensearch.sh');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, { signal: AbortSignal.timeout(3000) });
    const body = (await res.json()) as { status?: string };
    return body.status === 'green' || body.status === 'yellow';
  } catch {
    return false;
  }
}

export class DedicatedNode {
  private process?: ChildProcess;
  private output = '';
  private constructor(
    readonly url: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly data: string,
  ) {}

  /** A node on free ports with an empty data folder, started and healthy. */
  static async start(): Promise<DedicatedNode> {
    const [http, transport] = [await freePort(), await freePort()];
    const data = await mkdtemp(join(tmpdir(), 'vigil-opensearch-'));
    const env = { ...process.env, OPENSEARCH_HTTP_PORT: String(http), OPENSEARCH_TRANSPORT_PORT: String(transport), OPENSEARCH_DATA: data, OPENSEARCH_JAVA_OPTS: '-Xms384m -Xmx384m' };
    const node = new DedicatedNode(`http://127.0.0.1:${http}`, env, data);
    await node.restart();
    return node;
  }

  /** Starts the node (again, on the same data) and waits until it reports yellow or green. */
  async restart(timeoutMs = 180_000): Promise<void> {
    this.output = '';
    // Its own process group, so that killing it kills the JVM too.
    const child = spawn('bash', [script], { env: this.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-4000)));
    this.process = child;
    const deadline = Date.now() + timeoutMs;
    while (!(await healthy(this.url))) {
      if (child.exitCode !== null) throw new Error(`the dedicated OpenSearch node exited (${child.exitCode}):\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`the dedicated OpenSearch node was not healthy within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((done) => setTimeout(done, 500));
    }
  }

  /** Kills the node at once (SIGKILL: no flush, no clean shutdown) and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  }

  /** Kills the node and removes its data. */
  async destroy(): Promise<void> {
    await this.kill();
    await rm(this.data, { recursive: true, force: true });
  }
}
