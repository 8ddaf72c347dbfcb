/**
 * Structured logs (pino, Fastify's logger): one JSON line per event, to `<data>/logs/hangar.log`
 * and, unless turned off, to stdout.
 *
 * Secrets never reach a log line: request URLs are logged with the values of sensitive query
 * parameters replaced, headers are not logged at all (so `Authorization` and cookies stay out), and
 * bodies (form or JSON, where tokens and passwords travel) are never logged.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
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

export function logFilePath(dataDir: string): string {
  return join(dataDir, 'logs', 'hangar.log');
}

export function createLogger(config: Pick<ServerConfig, 'dataDir' | 'logLevel' | 'logToStdout'>): Logger {
  const file = logFilePath(config.dataDir);
  mkdirSync(join(config.dataDir, 'logs'), { recursive: true });
  const level = config.logLevel === 'silent' ? 'fatal' : config.logLevel;
  // The file is written synchronously (a line survives a crash that follows it); stdout is not, so
  // a slow reader of stdout never stalls the server.
  const streams: pino.StreamEntry[] = [{ level, stream: pino.destination({ dest: file, append: true, sync: true }) }];
  if (config.logToStdout) streams.push({ level, stream: pino.destination({ dest: 1, sync: false }) });
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
      // belt and braces: should anything ever log these paths, they are masked
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie', 'body.token', 'body.password', 'token', 'password'],
        censor: REDACTED,
      },
    },
    pino.multistream(streams),
  );
}
