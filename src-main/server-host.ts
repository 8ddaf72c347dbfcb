// The server inside the desktop app: the same startServer the CLI runs, started in-process with the
// desktop settings, with an operator token for the app's own console and a watch for new builds.
// Pause (tray), resume and restart (Settings) stop and start it; steps never overlap. No Electron
// here: src-main/index.ts wires it to the window, the tray and the bridge.
import { startServer, type RunningServer, type StartOptions } from '../src-server/server.ts';
import type { DesktopSettings, ServerConnection } from './hangar-api.ts';
import type { DesktopLog } from './logging.ts';
import { watchNewBuilds, type BuildNotice } from './notifications.ts';
import { mintOperatorToken, type OperatorToken } from './operator-token.ts';
import { serverConfig } from './settings.ts';
import { needsRestart } from './settings-rules.ts';

/** How often the operator token's expiry is looked at. */
const TOKEN_CHECK_MS = 3600 * 1000;

export interface ServerHostOptions {
  /** the settings to start with, read at every start */
  settings: () => DesktopSettings;
  log: DesktopLog;
  onNewBuild: (notice: BuildNotice) => void;
  /** told after every start, stop or failed start (the tray follows) */
  onStateChange?: () => void;
  /** passed to startServer (tests shorten timings) */
  startOptions?: StartOptions;
}

interface Running {
  server: RunningServer;
  token: OperatorToken;
  /** the settings it was started with */
  settings: DesktopSettings;
  stopWatching: () => void;
  renewTimer: NodeJS.Timeout;
}

export interface ServerHost {
  start(): Promise<ServerConnection>;
  /** Stops the server (requests in flight finish) after revoking the operator token. */
  stop(): Promise<void>;
  restart(): Promise<ServerConnection>;
  connection(): ServerConnection;
  /** the running server, or null while paused */
  running(): RunningServer | null;
  /** whether `saved` differs from what the running server was started with in a field it reads at start */
  restartNeeded(saved: DesktopSettings): boolean;
}

export function createServerHost(options: ServerHostOptions): ServerHost {
  const { log } = options;
  let running: Running | null = null;
  let lastError: string | null = null;
  // Each step starts when the one before has finished: a quit during a restart waits for it.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(step: () => Promise<T>): Promise<T> => {
    const next = queue.then(step);
    queue = next.catch(() => {});
    return next;
  };

  async function doStart(): Promise<void> {
    if (running) return;
    const settings = options.settings();
    log.moveTo(settings.dataDir);
    try {
      const server = await startServer(serverConfig(settings), options.startOptions);
      try {
        const token = mintOperatorToken(server.domain);
        const stopWatching = watchNewBuilds(server.domain, options.onNewBuild);
        const renewTimer = setInterval(() => {
          try {
            token.current();
          } catch (error) {
            log.error('could not renew the operator token', { err: error });
          }
        }, TOKEN_CHECK_MS).unref();
        running = { server, token, settings, stopWatching, renewTimer };
      } catch (error) {
        await server.close();
        throw error;
      }
      lastError = null;
      log.info('server started', { url: running.server.localUrl, lanUrl: running.server.urls().base, dataDir: settings.dataDir });
    } catch (error) {
      lastError = (error as Error).message;
      log.error('server did not start', { err: error, dataDir: settings.dataDir });
    }
    options.onStateChange?.();
  }

  async function doStop(): Promise<void> {
    if (!running) return;
    const { server, token, stopWatching, renewTimer } = running;
    running = null;
    clearInterval(renewTimer);
    stopWatching();
    // Revoked while the database is open: close() ends with closing it. Requests already accepted
    // (an upload from the console) were authenticated when they arrived and finish.
    try {
      token.revoke();
    } catch (error) {
      log.error('could not revoke the operator token', { err: error });
    }
    await server.close();
    log.info('server stopped');
    options.onStateChange?.();
  }

  function connection(): ServerConnection {
    if (!running) return { url: '', token: '', lanUrl: '', state: 'paused', ...(lastError !== null && { error: lastError }) };
    return { url: running.server.localUrl, token: running.token.current(), lanUrl: running.server.urls().base, state: 'running' };
  }

  return {
    start: () => serially(doStart).then(connection),
    stop: () => serially(doStop),
    restart: () => serially(async () => {
      await doStop();
      await doStart();
    }).then(connection),
    connection,
    running: () => running?.server ?? null,
    restartNeeded(saved) {
      const started = running?.settings;
      return started !== undefined && needsRestart(started, saved);
    },
  };
}
