// A small alert population raised through real ingest: three rules on the default pattern `win` and
// one on `lin`, five alerts created by separate ingests (so their created_at differ, oldest first:
// login-alice, proc-bob, scan, login-carol, lin-dave).
import assert from 'node:assert/strict';
import type { Service } from '../../src/server.js';
import type { Client } from '../helpers/service.js';
import { createPattern, createRule, equalsRule, ingest, setUpTeam, type CreatedPattern, type Json } from '../rules/fixtures.js';

export interface AlertWorld {
  admin: Client;
  analyst: Client;
  viewer: Client;
  win: CreatedPattern;
  lin: CreatedPattern;
  rules: { login: string; proc: string; scan: string; lin: string };
  /** Alert ids by label. */
  alerts: Record<'loginAlice' | 'procBob' | 'scan' | 'loginCarol' | 'linDave', string>;
}

export const EVENTS = {
  loginAlice: { Action: 'login', User: 'alice', Computer: 'ws-01', SourceIp: '10.0.0.1', Message: 'A Needle in the haystack' },
  procBob: { Action: 'proc', User: 'bob', Computer: 'ws-02', SourceIp: '10.0.0.3', CommandLine: 'C:\\Tools\\mimikatz.exe "sekurlsa"' },
  scan: { Action: 'scan', SourceIp: '10.0.0.9' },
  loginCarol: { Action: 'login', User: 'carol', Computer: 'srv-01', SourceIp: '10.0.0.2' },
  linDave: { action: 'sudo', user: 'dave', hostname: 'lx-01' },
};

async function raise(service: Service, pattern: CreatedPattern, event: Record<string, unknown>): Promise<string> {
  const response = await ingest(service, pattern, [event]);
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.data.alerts_created, 1, response.body);
  const [row] = await service.db.query<{ id: string }>('SELECT id FROM alerts ORDER BY created_at DESC, id DESC LIMIT 1');
  return row.id;
}

export async function alertWorld(service: Service, prefix: string): Promise<AlertWorld> {
  const team = await setUpTeam(service, `${prefix}-analyst`, `${prefix}-viewer`, { name: 'win', is_default: true });
  const lin = await createPattern(team.admin, { name: 'lin' });
  const rule = async (yaml: string, pattern?: string) =>
    ((await createRule(team.analyst, { yaml_content: yaml, deploy: true, ...(pattern ? { index_pattern: pattern } : {}) })) as Json).id as string;
  const rules = {
    login: await rule(equalsRule('Alpha Login', 'Action', 'login', 'high', ['attack.initial_access'])),
    proc: await rule(equalsRule('Beta Process', 'Action', 'proc', 'critical')),
    scan: await rule(equalsRule('Gamma Scan', 'Action', 'scan', 'low')),
    lin: await rule(equalsRule('Delta Sudo', 'action', 'sudo', 'medium'), 'lin'),
  };
  const alerts = {
    loginAlice: await raise(service, team.pattern, EVENTS.loginAlice),
    procBob: await raise(service, team.pattern, EVENTS.procBob),
    scan: await raise(service, team.pattern, EVENTS.scan),
    loginCarol: await raise(service, team.pattern, EVENTS.loginCarol),
    linDave: await raise(service, lin, EVENTS.linDave),
  };
  return { ...team, win: team.pattern, lin, rules, alerts };
}
