// What the shipper tests share: the service listening on a real port with an index pattern and a
// deployed rule, a real shipper started as its own process group (stopped in `after`), a bounded wait
// for the events and alerts to arrive, and where the shippers installed by scripts/shippers-up.sh are.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loginAdmin, startService, type TestService } from '../helpers/service.js';
import { countRows, createPattern, createRule, sigma, type CreatedPattern } from '../rules/fixtures.js';

export const SHIPPERS_DIR = process.env.VIGIL_SHIPPERS_DIR ?? join(homedir(), '.cache', 'vigil-shippers');

/** Why a shipper's test cannot run (its binary is absent), or undefined; under CI=true an absent
 * shipper fails the suite instead of skipping it. */
export function missing(name: string, paths: string[]): string | undefined {
  const absent = paths.filter((p) => !existsSync(p));
  if (absent.length === 0) return undefined;
  const reason = `${name} is not installed (missing ${absent.join(', ')}); run scripts/shippers-up.sh`;
  if (process.env.CI === 'true') throw new Error(reason);
  return reason;
}

/** Where a Debian package put a file under /usr/lib/<multiarch triplet>/ (the first triplet holding
 * it), or the x86_64 path (reported as missing). */
export function multiarchLib(relative: string): string {
  const triplets = existsSync('/usr/lib') ? readdirSync('/usr/lib').filter((d) => d.endsWith('-linux-gnu')) : [];
  return triplets.map((t) => join('/usr/lib', t, relative)).find((p) => existsSync(p)) ?? join('/usr/lib/x86_64-linux-gnu', relative);
}

/** A marker the deployed rule looks for in the `message` field. */
export const MARKER = 'evil-command';

export interface Stage {
  service: TestService & { close(): Promise<void> };
  pattern: CreatedPattern;
  /** http://127.0.0.1:<port>/api/es */
  esUrl: string;
  port: number;
  dir: string;
  close(): Promise<void>;
}

/** Starts the service on a free port with a pattern and a deployed rule matching MARKER. */
export async function stage(patternName: string): Promise<Stage> {
  const service = await startService('pglite');
  const admin = await loginAdmin(service);
  const pattern = await createPattern(admin, { name: patternName });
  const detection = `  selection:\n    message|contains: '${MARKER}'\n  condition: selection`;
  await createRule(admin, { yaml_content: sigma({ title: 'Shipped Evil Command', level: 'high', detection }), index_pattern: pattern.name, deploy: true });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const address = service.app.server.address();
  assert.ok(address && typeof address === 'object');
  const dir = mkdtempSync(join(tmpdir(), `vigil-${patternName}-`));
  return {
    service,
    pattern,
    esUrl: `http://127.0.0.1:${address.port}/api/es`,
    port: address.port,
    dir,
    async close() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Lines of a log file: `total` ordinary lines of which `marked` (spread through) carry MARKER. */
export function logLines(total: number, marked: number, prefix: string): string[] {
  const every = Math.floor(total / marked);
  return Array.from({ length: total }, (_, i) =>
    i % every === every - 1 && Math.floor(i / every) < marked ? `${prefix} line=${i} user=mallory action=${MARKER} target=db-${i}` : `${prefix} line=${i} user=u${i} action=login result=ok`,
  );
}

export interface Shipper {
  child: ChildProcess;
  output(): string;
  stop(): void;
}

/** Starts a shipper in its own process group; stop() kills the whole group. */
export function startShipper(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Shipper {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.on('error', (error) => keep(Buffer.from(String(error))));
  return {
    child,
    output: () => output,
    stop() {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
}

/** Waits (at most `timeoutMs`) until the pattern holds `events` stored events and `alerts` alerts;
 * answers the counts seen last, so the caller's assertions report what arrived. */
export async function arrivals(stageOf: Stage, events: number, alerts: number, shipper: Shipper, timeoutMs = 60_000): Promise<{ events: number; alerts: number }> {
  const deadline = Date.now() + timeoutMs;
  let seen = { events: 0, alerts: 0 };
  for (;;) {
    seen = {
      events: await countRows(stageOf.service, 'events WHERE index_pattern_id = $1', [stageOf.pattern.id]),
      alerts: await countRows(stageOf.service, 'alerts WHERE index_pattern_id = $1', [stageOf.pattern.id]),
    };
    if ((seen.events >= events && seen.alerts >= alerts) || Date.now() > deadline) return seen;
    if (shipper.child.exitCode !== null) throw new Error(`the shipper exited with ${shipper.child.exitCode}:\n${shipper.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
