// Local receivers for the notifications bench, in this process: a webhook receiver answering 200 to every
// POST and counting them (and the digests among them), and a minimal SMTP server that speaks just enough
// of the protocol (greeting, EHLO, MAIL, RCPT, DATA, RSET, QUIT) to take each message and count it.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';

export interface Sink {
  port: number;
  /** Messages taken so far. */
  count(): number;
  close(): Promise<void>;
}

export interface WebhookSink extends Sink {
  /** Digests among them (a body holding "digest"). */
  digests(): number;
  reset(): void;
}

export async function webhookSink(): Promise<WebhookSink> {
  let count = 0;
  let digests = 0;
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      count++;
      if (body.startsWith('{') && body.includes('"digest":')) digests++;
      res.end('ok');
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    port: (server.address() as AddressInfo).port,
    count: () => count,
    digests: () => digests,
    reset: () => void ((count = 0), (digests = 0)),
    close: () => new Promise((done) => server.close(() => done())),
  };
}

export async function smtpSink(): Promise<Sink> {
  let count = 0;
  const server = createTcpServer((socket) => {
    let buffered = '';
    let inData = false;
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.write('220 bench-smtp ready\r\n');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (;;) {
        if (inData) {
          const end = buffered.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffered = buffered.slice(end + 5);
          inData = false;
          count++;
          socket.write('250 taken\r\n');
          continue;
        }
        const eol = buffered.indexOf('\r\n');
        if (eol < 0) return;
        const verb = buffered.slice(0, eol).slice(0, 4).toUpperCase();
        buffered = buffered.slice(eol + 2);
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 bench-smtp\r\n');
        else if (verb === 'DATA') {
          inData = true;
          // The dot the message may start with is found only after a line break: look from here.
          buffered = `\r\n${buffered}`;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    port: (server.address() as AddressInfo).port,
    count: () => count,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
