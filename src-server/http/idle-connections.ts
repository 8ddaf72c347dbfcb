/**
 * Closing connections that stall. Node calls a socket timed out when no byte has moved either way
 * for the idle timeout (Fastify's `connectionTimeout`, ServerConfig.timeouts.idleMs). Hangar then
 * closes it — an upload whose client stopped sending (its handler fails and removes the temporary
 * file, freeing the slot), a download the device stopped reading, a keep-alive connection nobody
 * uses — but spares a connection whose request has fully arrived and whose answer has not started:
 * there the server is the slow one (parsing a large build) and the client is waiting for the answer.
 * A slow transfer that keeps moving is never idle, so it is never cut.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
}

/** Installs the rule above on an HTTP or HTTPS server whose idle timeout is set (`server.setTimeout`). */
export function closeStalledConnections(server: Server | HttpsServer, logger: Logger): void {
  const current = new WeakMap<Socket, Exchange>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    current.set(socket, { request, response });
    response.once('close', () => {
      if (current.get(socket)?.response === response) current.delete(socket);
    });
  });
  // With a listener here, Node leaves the socket to us instead of destroying it.
  server.on('timeout', (socket: Socket) => {
    const exchange = current.get(socket);
    if (exchange && exchange.request.complete && !exchange.response.headersSent) return; // being worked on
    if (exchange) {
      const { method, url = '' } = exchange.request;
      // the path only: a query may carry a token
      logger.info({ method, path: url.split('?')[0], remoteAddress: socket.remoteAddress, idleMs: server.timeout }, 'closed a stalled connection');
    }
    socket.destroy();
  });
}
