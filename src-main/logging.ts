// The desktop app's own log, `<data>/logs/desktop.log` (JSON lines, beside the server's hangar.log):
// starts and stops, settings migrations, failures, and the main process's uncaught exceptions and
// unhandled rejections. Every line is written synchronously, so the last words of a crash are on disk.
// No secrets: the operator token is never passed to it, and fields named `token` are redacted anyway.
import { join } from 'node:path';
import pino, { type Logger } from 'pino';

export function desktopLogFile(dataDir: string): string {
  return join(dataDir, 'logs', 'desktop.log');
}

export interface DesktopLog {
  readonly file: string;
  info(message: string, details?: object): void;
  warn(message: string, details?: object): void;
  error(message: string, details?: object): void;
  /** Follows the data folder when it changes (the next lines go to the new one). */
  moveTo(dataDir: string): void;
}

function open(file: string): Logger {
  return pino(
    {
      base: { pid: process.pid, process: 'desktop' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: pino.stdSerializers.err },
      redact: { paths: ['token', '*.token'], censor: '[REDACTED]' },
    },
    pino.destination({ dest: file, append: true, sync: true, mkdir: true }),
  );
}

export function openDesktopLog(dataDir: string): DesktopLog {
  let file = desktopLogFile(dataDir);
  let logger = open(file);
  return {
    get file() {
      return file;
    },
    info: (message, details = {}) => logger.info(details, message),
    warn: (message, details = {}) => logger.warn(details, message),
    error: (message, details = {}) => logger.error(details, message),
    moveTo(next) {
      if (desktopLogFile(next) === file) return;
      file = desktopLogFile(next);
      logger = open(file);
    },
  };
}

/**
 * Logs what would otherwise only reach a console nobody reads: uncaught exceptions (then `onFatal`
 * decides what happens next, the process being in an unknown state) and unhandled rejections.
 */
export function logCrashes(log: DesktopLog, onFatal: (error: unknown) => void, target: NodeJS.EventEmitter = process): void {
  target.on('uncaughtException', (error: unknown) => {
    log.error('uncaught exception', { err: error });
    onFatal(error);
  });
  target.on('unhandledRejection', (reason: unknown) => log.error('unhandled rejection', { err: reason }));
}
