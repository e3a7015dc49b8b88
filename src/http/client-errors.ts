// Answers to requests the HTTP parser refuses before any route sees them (headers too large, a
// malformed request line, a request that took too long to arrive): the error model and the security
// headers like every other answer, then the connection is closed.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { SECURITY_HEADERS } from './security-headers.js';

function answerOf(code: string | undefined): { status: number; detail: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, detail: 'The request did not arrive in time' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, detail: 'Request headers too large' };
  return { status: 400, detail: 'Malformed HTTP request' };
}

export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, detail } = answerOf(error.code);
  const body = JSON.stringify({ detail, status_code: status });
  const headers = {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  // An answer already sent on this connection (a refusal before its body arrived) is not followed by another.
  const answered = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !answered) {
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
