/**
 * Child processes and temporary directories of a benchmark run, and their cleanup: whatever happens
 * (a failed benchmark, an exception, Ctrl-C), the servers are stopped and the temporary files removed.
 *
 * Servers run in child processes so that their resident memory can be read from /proc/<pid>/status
 * without the load generator's memory mixing in.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, ROOT } from './config.ts';

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/** A new directory under os.tmpdir(), removed by cleanup(). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `hangar-bench-${prefix}-`));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Kills every child still running and removes every temporary directory (synchronous: safe in 'exit'). */
export function cleanup(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

let installed = false;
/** Cleans up on exit and on SIGINT/SIGTERM. */
export function installCleanup(): void {
  if (installed) return;
  installed = true;
  process.on('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
      cleanup();
      process.exit(130);
    });
  }
}

export interface Server {
  name: string;
  pid: number;
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  host: string;
  port: number;
  /** SIGTERM, then SIGKILL after a grace period */
  stop(): Promise<void>;
}

const READY = /(?:Hangar|Baseline) listening on (http:\/\/([^\s:]+|\[[^\]]+\]):(\d+))/;

/** Starts `node <args>` and waits for its "… listening on http://H:P" line. */
export function startServer(name: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Server> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-8192);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  exited.then(() => children.delete(child));

  async function stop(): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  let ready = false;
  return new Promise<Server>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name} did not start within 60 s\n${stderr}`));
    }, 60_000);
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      if (ready) return;
      stdout += text;
      const match = READY.exec(stdout);
      if (match) {
        clearTimeout(timer);
        ready = true;
        const host = match[2]!.replace(/^\[|\]$/g, '');
        resolve({ name, pid: child.pid!, url: match[1]!, host, port: Number(match[3]), stop });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (${signal ?? code})\n${stderr}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** `hangar serve` on a loopback port, logging to its data directory only. */
export function startHangar(dataDir: string): Promise<Server> {
  const env: NodeJS.ProcessEnv = { ...process.env, HANGAR_ADMIN_TOKEN: ADMIN_TOKEN, HANGAR_LOG_STDOUT: '0', HANGAR_MDNS: '0' };
  for (const key of ['HANGAR_MAX_UPLOAD_MB', 'HANGAR_HOST', 'HANGAR_PORT', 'HANGAR_HTTPS_PORT', 'HANGAR_INTERFACE', 'HANGAR_DATA_DIR', 'HANGAR_LOG_LEVEL', 'HANGAR_API_SHAPE']) delete env[key];
  const flags = (process.env.BENCH_HANGAR_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const main = join(process.env.BENCH_HANGAR_ROOT ?? ROOT, 'src-server', 'cli', 'main.ts');
  const logLevel = process.env.BENCH_HANGAR_LOG_LEVEL ? ['--log-level', process.env.BENCH_HANGAR_LOG_LEVEL] : [];
  return startServer('hangar', [...flags, main, 'serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir, ...logLevel], env);
}

/** One of the bare servers of bench/lib/baseline-server.ts. */
export function startBaseline(mode: 'sink' | 'static' | 'fastify-json', arg: string): Promise<Server> {
  return startServer(`baseline-${mode}`, ['bench/lib/baseline-server.ts', mode, arg]);
}
