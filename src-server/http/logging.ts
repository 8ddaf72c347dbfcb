/**
 * Structured logs (pino, Fastify's logger): one JSON line per event, to `<data>/logs/hangar.log`
 * and, unless turned off, to stdout. Requests are logged once each, when they complete (AccessLog).
 *
 * Secrets never reach a log line: request URLs are logged with the values of sensitive query
 * parameters replaced, headers are not logged at all (so `Authorization` and cookies stay out), and
 * bodies (form or JSON, where tokens and passwords travel) are never logged.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import type { ServerConfig } from '../config/config.ts';

/** Query parameters whose values are secrets (compared case-insensitively). */
export const SECRET_PARAMS = ['token', 'channel_key', 'key', 'password', 'access_token', 'api_key'];
export const REDACTED = '[REDACTED]';

/** The URL with the values of secret query parameters replaced; the rest is left as sent. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    let name = eq === -1 ? pair : pair.slice(0, eq);
    try {
      name = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // a malformed escape: compare the raw text
    }
    return SECRET_PARAMS.includes(name.toLowerCase()) ? `${pair.slice(0, eq === -1 ? pair.length : eq)}=${REDACTED}` : pair;
  });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

interface RequestLike {
  id?: string;
  method?: string;
  url?: string;
  ip?: string;
  socket?: { remoteAddress?: string };
  headers?: Record<string, unknown>;
}

/** Lines of level warn (40) and above to `urgent`, the others to `batched`. */
function byLevel(urgent: pino.DestinationStream & { flush?: () => void }, batched: pino.DestinationStream & { flush?: () => void }) {
  return {
    write(line: string) {
      // pino lines start with {"level":NN — the first digit of NN tells (1, 2, 3 below warn)
      if (line.charCodeAt(9) >= 0x34 && line.startsWith('{"level":')) urgent.write(line);
      else batched.write(line);
    },
    flush() {
      urgent.flush?.();
      batched.flush?.();
    },
  };
}

/**
 * Both destinations get every line (pino's multistream does the same, with per-line level checks
 * we do not need: both take every level the logger emits).
 */
function tee(first: pino.DestinationStream & { flush?: () => void }, second: pino.DestinationStream & { flush?: () => void }) {
  return {
    write(line: string) {
      first.write(line);
      second.write(line);
    },
    flush() {
      first.flush?.();
      second.flush?.();
    },
  };
}

export function logFilePath(dataDir: string): string {
  return join(dataDir, 'logs', 'hangar.log');
}

export function createLogger(config: Pick<ServerConfig, 'dataDir' | 'logLevel' | 'logToStdout'>): Logger {
  const file = logFilePath(config.dataDir);
  mkdirSync(join(config.dataDir, 'logs'), { recursive: true });
  const level = config.logLevel === 'silent' ? 'fatal' : config.logLevel;
  // The file has two writers. Warnings and errors are written at once: they are rare and they are
  // the lines an operator looks for, so they must be on disk before anything else happens (a crash,
  // a test that reads the file). Everything else, the access log first of all, is written in
  // batches at least once a second: a write per line would cost more than the request it logs.
  // pino flushes at exit, crashes included; only a SIGKILL can lose the last second of them. Lines
  // of the two may land out of order within that second; each carries its time.
  const toFile = byLevel(
    pino.destination({ dest: file, append: true, sync: true }),
    pino.destination({ dest: file, append: true, sync: false, minLength: 8192, periodicFlush: 1000 }),
  );
  const destination = config.logToStdout ? tee(toFile, pino.destination({ dest: 1, sync: false })) : toFile;
  return pino(
    {
      level: config.logLevel,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: {
        req(request: RequestLike) {
          return {
            method: request.method,
            url: request.url === undefined ? undefined : redactUrl(request.url),
            remoteAddress: request.ip ?? request.socket?.remoteAddress,
            userAgent: request.headers?.['user-agent'],
          };
        },
        res(reply: { statusCode?: number }) {
          return { statusCode: reply.statusCode };
        },
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * 'debug' for routes that clients poll (latest, health...): their answered requests are logged at
     * debug level, so that the log keeps the lines an operator needs. Refusals and errors still show.
     */
    accessLog?: 'debug';
  }
}

/**
 * One access-log line per request, when it completes (method, URL with secrets redacted, status,
 * time), instead of Fastify's two: devices polling `latest` make logging a real share of the work.
 * The "incoming request" line is kept at debug level.
 */
export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    // flat fields, written as they are: no serializer runs for the line logged most often
    const entry = {
      method: request.method,
      url: redactUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    };
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else if (request.routeOptions.config.accessLog === 'debug' && reply.statusCode < 400) reply.log.debug(entry, 'request');
    else reply.log.info(entry, 'request');
  }
}
