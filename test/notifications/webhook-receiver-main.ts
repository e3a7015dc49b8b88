// A webhook receiver as a team would run one, in a process of its own: it verifies each request's
// X-Vigil-Signature against the shared secret (HMAC-SHA256 of "{timestamp}.{body}", compared in
// constant time) and keeps what it received. GET /received answers the requests so far; a POST to
// /fail?count=N answers the next N deliveries 500. Settings come as JSON in WEBHOOK_RECEIVER.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const { secret } = JSON.parse(process.env.WEBHOOK_RECEIVER ?? '{}') as { secret?: string };
const received: { path: string; headers: Record<string, unknown>; body: unknown; signatureValid: boolean | null }[] = [];
let failNext = 0;

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
    if (req.method === 'POST' && url.pathname === '/fail') {
      failNext = Number(url.searchParams.get('count') ?? 1);
      return res.end('ok');
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (failNext > 0) {
      failNext--;
      res.statusCode = 500;
      return res.end('not now');
    }
    const valid = signatureValid(req.headers['x-vigil-signature'] as string | undefined, req.headers['x-vigil-timestamp'] as string | undefined, text);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    received.push({ path: url.pathname, headers: req.headers, body, signatureValid: valid });
    res.statusCode = valid === false ? 401 : 200;
    res.end(valid === false ? 'bad signature' : 'ok');
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`listening ${address.port}\n`);
});
