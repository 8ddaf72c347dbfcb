/**
 * The bare servers Hangar is compared with, run as child processes like Hangar itself:
 *
 *   node bench/lib/baseline-server.ts sink <dir>          POST: the raw request body piped to a new file in <dir>, 201
 *   node bench/lib/baseline-server.ts static <root>       GET /<path>: the file under <root>, http + fs.createReadStream
 *   node bench/lib/baseline-server.ts fastify-json <file> GET /api/apps/latest: the JSON in <file> (bare Fastify, no logger)
 *
 * Each prints "Baseline listening on http://127.0.0.1:P" when ready and stops on SIGTERM.
 */
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';

const [mode, arg] = process.argv.slice(2);
if (!mode || !arg) {
  process.stderr.write('usage: baseline-server.ts sink|static|fastify-json <arg>\n');
  process.exit(2);
}

function ready(server: Server): void {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`Baseline listening on http://127.0.0.1:${port}\n`);
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

if (mode === 'sink') {
  let n = 0;
  const server = createServer((req, res) => {
    n += 1;
    const file = join(arg, `upload-${process.pid}-${n}`);
    pipeline(req, createWriteStream(file, { flags: 'wx' })).then(
      () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ file }));
      },
      (error: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(error.message);
      },
    );
  });
  server.listen(0, '127.0.0.1', () => ready(server));
} else if (mode === 'static') {
  const root = normalize(arg + sep);
  const server = createServer((req, res) => {
    const path = normalize(join(root, decodeURIComponent((req.url ?? '/').split('?')[0]!)));
    let size: number;
    try {
      if (!path.startsWith(root)) throw new Error('outside');
      size = statSync(path).size;
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    pipeline(createReadStream(path), res).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1', () => ready(server));
} else if (mode === 'fastify-json') {
  const body = JSON.parse(readFileSync(arg, 'utf8')) as unknown;
  const app = Fastify({ logger: false });
  app.get('/api/apps/latest', async () => body);
  await app.listen({ host: '127.0.0.1', port: 0 });
  ready(app.server);
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
