/** `hangar serve`: run until SIGTERM or SIGINT, then stop cleanly (requests in flight finish). */
import type { ServerConfig } from '../config/config.ts';
import { startServer } from '../server.ts';
import type { FirstStart } from '../domain/index.ts';

export async function serve(config: ServerConfig): Promise<number> {
  const server = await startServer(config);
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // a second signal: the operator insists
        process.stderr.write(`hangar: ${signal} again, exiting now\n`);
        process.exit(1);
      }
      stopping = true;
      server.logger.info({ signal }, 'stopping');
      server.close().then(
        () => resolve(0),
        (error: unknown) => {
          process.stderr.write(`hangar: error while stopping: ${(error as Error).message}\n`);
          resolve(1);
        },
      );
    };
    // Handlers first: a supervisor may signal as soon as it reads the line below.
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);

    const notice = firstStartNotice(server.firstStart);
    if (notice) process.stdout.write(notice + '\n');
    process.stdout.write(`Hangar listening on ${server.url}\n`);
    const urls = server.urls();
    process.stdout.write(`Devices open ${urls.base}${server.httpsPort === null ? '' : ` (HTTPS for iOS installs on port ${server.httpsPort}; trust it once at ${urls.base}/ca)`}\n`);
  });
}

/** What an operator must know after the first start of a data directory (R17). */
export function firstStartNotice(first: FirstStart | null): string | null {
  if (!first) return null;
  return first.tokenFile
    ? `Created user "${first.username}"; its first API token is in ${first.tokenFile} (readable by you only).`
    : `Created user "${first.username}" with the token from HANGAR_ADMIN_TOKEN.`;
}
