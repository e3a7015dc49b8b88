// Polls GET /api/health on a real listener while a hostile (or merely big) request runs, to show the
// service keeps answering others meanwhile. Each poll must answer 200 within a generous bound (far
// above the one second expected, so a loaded machine does not fail the test, far below the stalls a
// request holding the database used to cause); the polls say whether any answered while the request
// was still in flight, how slow the slowest answer was and how long the service's event loop was held
// at most, so a test can hold them to the one second the service promises (assertResponsive).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Service } from '../../src/server.js';

/** A health answer slower than this counts as a stall. */
export const HEALTH_BOUND_MS = 5_000;
/** What the service promises every other request while one is busy: an answer within a second. */
export const RESPONSIVE_BOUND_MS = 1_000;

export interface Probe<T> {
  /** What the watched request answered. */
  result: T;
  /** Health answers received while the watched request was still running. */
  answeredInFlight: number;
  /** Health polls in all (at least one). */
  polls: number;
  /** The slowest health answer, in milliseconds. */
  slowestHealthMs: number;
  /** The longest the event loop of this process (where the service runs) was held, in milliseconds. */
  longestLoopStallMs: number;
}

/** Fails unless every health answer and the event loop stayed within RESPONSIVE_BOUND_MS. */
export function assertResponsive(probe: Probe<unknown>, what: string): void {
  assert.ok(probe.slowestHealthMs < RESPONSIVE_BOUND_MS, `${what}: the slowest health answer took ${Math.round(probe.slowestHealthMs)} ms`);
  assert.ok(probe.longestLoopStallMs < RESPONSIVE_BOUND_MS, `${what}: the event loop was held for ${Math.round(probe.longestLoopStallMs)} ms`);
}

/** Starts listening on a free port (once) and answers the base URL. */
export async function listening(service: Service): Promise<string> {
  if (!service.app.server.listening) await service.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
}

/** Runs `request` and polls health until it settles; throws if a poll fails or is slower than the bound. */
export async function probeHealthDuring<T>(base: string, request: () => Promise<T>): Promise<Probe<T>> {
  let settled = false;
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  let slowestHealthMs = 0;
  const running = request().finally(() => {
    settled = true;
  });
  let answeredInFlight = 0;
  let polls = 0;
  do {
    polls++;
    const started = Date.now();
    let status: number;
    try {
      status = (await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(HEALTH_BOUND_MS) })).status;
    } catch (error) {
      await running.catch(() => {});
      loop.disable();
      throw new Error(`GET /api/health did not answer within ${HEALTH_BOUND_MS} ms (after ${Date.now() - started} ms): ${(error as Error).message}`);
    }
    slowestHealthMs = Math.max(slowestHealthMs, Date.now() - started);
    if (status !== 200) throw new Error(`GET /api/health answered ${status}`);
    if (!settled) answeredInFlight++;
  } while (!settled);
  loop.disable();
  return { result: await running, answeredInFlight, polls, slowestHealthMs, longestLoopStallMs: loop.max / 1e6 };
}

/** A fetch answer with its body read as JSON (or text when it is not JSON). */
export async function send(url: string, init: RequestInit): Promise<{ status: number; data: any; text: string }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(url, init);
  const text = await response.text();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  return { status: response.status, data, text };
}
