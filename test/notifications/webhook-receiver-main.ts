// A webhook receiver as a team would run one, in a process of its own: it verifies each request's
// X-Vigil-Signature against the shared secret (HMAC-SHA256 of "{timestamp}.{body}", compared in
// constant time) and keeps what it received. GET /received answers the requests so far; a POST to
// /fail?count=N answers the next N deliveries 500. Bad receivers, by path: /hang accepts a delivery and
// never answers, /huge answers 200 with ?mb= megabytes (default 10) written as the sender reads them,
// /loop answers a redirect to itself; GET /stats says how many were hung and how many bytes of huge
// answers the socket took before it closed. A POST to /hold holds every delivery unanswered until a POST
// to /release answers them; a held delivery whose sender went away is listed as dropped by GET /held
// (its X-Vigil-Delivery), and only answered deliveries count as received. Settings come as JSON in
// WEBHOOK_RECEIVER.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const { secret } = JSON.parse(process.env.WEBHOOK_RECEIVER ?? '{}') as { secret?: string };
const received: { path: string; headers: Record<string, unknown>; body: unknown; raw: string; signatureValid: boolean | null }[] = [];
let failNext = 0;
let holding = false;
const held = new Set<() => void>();
const dropped: string[] = [];
const stats = { hung: 0, loops: 0, hugeAnswers: 0, hugeBytesWritten: 0, hugeBytesPlanned: 0, hugeCompleted: 0 };

/** Writes `total` bytes as fast as the socket takes them, counting what it took, until done or closed. */
function answerHuge(res: ServerResponse, total: number): void {
  stats.hugeAnswers++;
  stats.hugeBytesPlanned += total;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let left = total;
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
  const more = () => {
    while (left > 0 && !res.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      stats.hugeBytesWritten += piece.length;
      if (!res.write(piece)) return void res.once('drain', more);
    }
    if (left === 0) res.end(() => stats.hugeCompleted++);
  };
  res.on('error', () => {});
  more();
}

function signatureValid(header: string | undefined, timestamp: string | undefined, body: string): boolean | null {
  if (!secret) return null;
  if (!header || !timestamp) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (req.method === 'GET' && url.pathname === '/received') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(received));
    }
    if (req.method === 'GET' && url.pathname === '/stats') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify(stats));
    }
    if (url.pathname === '/hang') return void stats.hung++;
    if (url.pathname === '/huge') return answerHuge(res, Number(url.searchParams.get('mb') ?? 10) * 1024 * 1024);
    if (url.pathname === '/loop') {
      stats.loops++;
      res.writeHead(302, { location: '/loop' });
      return res.end();
    }
    if (req.method === 'POST' && url.pathname === '/hold') {
      holding = true;
      return res.end('ok');
    }
    if (req.method === 'POST' && url.pathname === '/release') {
      holding = false;
      for (const answer of held) answer();
      held.clear();
      return res.end('ok');
    }
    if (req.method === 'GET' && url.pathname === '/held') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ held: held.size, dropped }));
    }
    if (req.method === 'POST' && url.pathname === '/fail') {
      failNext = Number(url.searchParams.get('count') ?? 1);
      return res.end('ok');
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (holding) {
      const answer = () => (res.destroyed ? dropped.push(String(req.headers['x-vigil-delivery'])) : accept(req, res, url, text));
      held.add(answer);
      res.on('close', () => {
        if (res.writableFinished || !held.delete(answer)) return;
        dropped.push(String(req.headers['x-vigil-delivery']));
      });
      return;
    }
    accept(req, res, url, text);
  });
});

/** Answers a delivery: 500 while failures are asked for, else 200 (401 for a bad signature), kept when answered. */
function accept(req: IncomingMessage, res: ServerResponse, url: URL, text: string): void {
  if (failNext > 0) {
    failNext--;
    res.statusCode = 500;
    res.end('not now');
    return;
  }
  const valid = signatureValid(req.headers['x-vigil-signature'] as string | undefined, req.headers['x-vigil-timestamp'] as string | undefined, text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  received.push({ path: url.pathname, headers: req.headers, body, raw: text, signatureValid: valid });
  res.statusCode = valid === false ? 401 : 200;
  res.end(valid === false ? 'bad signature' : 'ok');
}
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`listening ${address.port}\n`);
});
