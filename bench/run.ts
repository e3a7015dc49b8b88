// `npm run bench`: runs the bench sections named in BENCH or as the first argument (comma-separated;
// default matcher,ingest,correlation,notifications,opensearch;
// BENCH=all runs every one — the history and alerts sections load a million rows per database and take
// several minutes each):
//   matcher  — the scan matcher over generated events, in this process (bench/matcher.ts)
//   ingest   — HTTP ingest into the real service with and without the SigmaHQ rules (bench/ingest.ts)
//   correlation — HTTP ingest with the SigmaHQ rules, with and without 50 correlation rules on top, and
//              the correlation engine's state for 10,000 groups (bench/correlation.ts)
//   correlation-growth — one correlation's state over 10,000 groups fed by five requests of 50,000
//              events: each request's time and health meanwhile (bench/correlation-growth.ts)
//   history  — a 7-day historical rule test over 1,000,000 stored events, with /api/health latency meanwhile (bench/history.ts)
//   alerts   — alert list, groups and stats latencies over 1,000,000 alerts (bench/alerts.ts)
//   triage   — bulk status changes by filter over 100,000 alerts, with /api/health latency meanwhile (bench/triage.ts)
//   notifications — ingest with the SigmaHQ rules and two channels (webhook, mail) against without, 10,000
//              alerts delivered to a webhook, and the same throttled into digests (bench/notifications.ts)
//   scale    — one, then two instances on one PostgreSQL database with the SigmaHQ and 50 correlation
//              rules: CPU per event of each instance and of PostgreSQL, lock waits meanwhile; PostgreSQL
//              only (bench/scale.ts; skipped with a line saying so otherwise)
//   opensearch — percolation and ingest with the OpenSearch backend against the embedded one, when a node
//              answers at OPENSEARCH_BENCH_URL (bench/opensearch.ts; skipped with a line saying so otherwise)
// The end-to-end sections run on the embedded database and, when BENCH_DATABASE_URL or
// TEST_DATABASE_URL names a PostgreSQL server, on a fresh database there (BENCH_DATABASES narrows).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SECTIONS = ['matcher', 'ingest', 'correlation', 'correlation-growth', 'notifications', 'history', 'alerts', 'triage', 'scale', 'opensearch'] as const;
const corpus = resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');
if (!existsSync(resolve(corpus, 'sigma-rules/rules'))) {
  console.error(`vigil bench: the SigmaHQ corpus is expected at ${corpus} (../shared/corpus beside the checkout)`);
  process.exit(1);
}
const named = process.argv[2] || process.env.BENCH || 'matcher,ingest,correlation,notifications,opensearch';
const wanted = (named === 'all' ? SECTIONS.join(',') : named).split(',').map((s) => s.trim()).filter(Boolean);
const unknown = wanted.filter((s) => !(SECTIONS as readonly string[]).includes(s));
if (unknown.length) {
  console.error(`vigil bench: unknown section ${unknown.join(', ')}; sections: ${SECTIONS.join(', ')}`);
  process.exit(2);
}
for (const section of SECTIONS.filter((s) => wanted.includes(s))) {
  if (section === 'matcher') await import('./matcher.js');
  else if (section === 'ingest') await (await import('./ingest.js')).ingestBench(corpus);
  else if (section === 'correlation') await (await import('./correlation.js')).correlationBench(corpus);
  else if (section === 'correlation-growth') await (await import('./correlation-growth.js')).correlationGrowthBench();
  else if (section === 'notifications') await (await import('./notifications.js')).notificationsBench(corpus);
  else if (section === 'opensearch') await (await import('./opensearch.js')).openSearchBench(corpus);
  else if (section === 'history') await (await import('./history.js')).historyBench(corpus);
  else if (section === 'scale') await (await import('./scale.js')).scaleBench(corpus);
  else if (section === 'triage') await (await import('./triage.js')).triageBench(corpus);
  else await (await import('./alerts.js')).alertsBench(corpus);
}
