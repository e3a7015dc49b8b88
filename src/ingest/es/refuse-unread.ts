// A _bulk request refused before its body is read (wrong credentials, no free slot) must not cost the
// server that body: its answer says `Connection: close` and the connection is closed once the answer
// is flushed, instead of the server reading (and dropping) up to 10 MiB to keep the connection alive.
import { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Marks the answer about to be sent as the last on its connection, and closes the connection once
 * the answer has left, without reading the rest of the request. */
export function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('Connection', 'close');
  const socket = request.raw.socket as Partial<Socket> | null;
  // An injected request (tests, no network) has no real connection to close.
  if (!(socket instanceof Socket)) return;
  // Nothing more is read from this connection: the client's unsent body stays with the client.
  socket.pause();
  reply.raw.once('finish', () => socket.destroySoon());
  reply.raw.once('close', () => {
    if (!socket.destroyed) socket.destroy();
  });
}
