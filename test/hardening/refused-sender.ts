// A sender of a _bulk request the server refuses before reading its body (a wrong ingest token): it
// announces megabytes of body and writes them as fast as the connection takes them, until the server
// closes the connection. Used alone by the test, and many at once from a process of their own
// (refused-senders-main.ts), so their writing never shares the service's event loop.
import { connect } from 'node:net';

export const BODY_BYTES = 8 * 1024 * 1024;
const PIECE = Buffer.alloc(64 * 1024, '{"index":{}}\n{"a":1}\n');

export interface Refusal {
  answer: string;
  /** Body bytes the sender managed to hand to its socket before the server closed the connection. */
  written: number;
  closedByServer: boolean;
}

/** Sends a _bulk request with a wrong token announcing `BODY_BYTES` of body, and writes that body as
 * fast as the connection takes it, until the server closes the connection (or 20 s pass). */
export function refusedSender(port: number): Promise<Refusal> {
  return new Promise((resolve) => {
    let answer = '';
    let written = 0;
    let closedByServer = true;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        'POST /api/es/_bulk HTTP/1.1\r\nHost: vigil\r\nAuthorization: Bearer svc_it_wrong\r\n' +
          `Content-Type: application/x-ndjson\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`,
      );
      const pump = () => {
        while (written < BODY_BYTES && !socket.destroyed) {
          const piece = PIECE.subarray(0, Math.min(PIECE.length, BODY_BYTES - written));
          written += piece.length;
          if (!socket.write(piece)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    const bound = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, 20_000);
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(bound);
      resolve({ answer, written, closedByServer });
    });
  });
}
