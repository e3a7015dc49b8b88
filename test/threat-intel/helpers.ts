// Helpers of the threat-intel tests: uploading a feed as an admin would, and reading alert rows.
import assert from 'node:assert/strict';
import type { Client } from '../helpers/service.js';
import type { Service } from '../../src/server.js';
import type { Json } from '../rules/fixtures.js';

export async function uploadFeed(admin: Client, body: Record<string, unknown>): Promise<Record<string, Json>> {
  const response = await admin.post('/api/threat_intel/feeds', body);
  assert.equal(response.statusCode, 201, response.body);
  return response.data;
}

export interface AlertRow {
  id: string;
  enrichment: Json;
  risk_score: number | null;
  event: Json;
}

/** The alert rows raised on events carrying `marker` in their `case` field. */
export async function alertsFor(service: Service, marker: string): Promise<AlertRow[]> {
  return service.db.query<AlertRow & Record<string, unknown>>(`SELECT id, enrichment, risk_score, event FROM alerts WHERE event->>'case' = $1`, [marker]);
}
