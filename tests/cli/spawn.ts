/**
 * Runs the real `hangar` command line (src-server/cli/main.ts under the current Node) as a child
 * process, for the CLI tests. Every process and temporary data directory made here is registered and
 * removed by `cleanupCli()`, which `useCliCleanup()` installs as an afterEach/afterAll hook, so no
 * process outlives the tests.
 */
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const MAIN = join(ROOT, 'src-server', 'cli', 'main.ts');
export const DATABASE_FILE = 'hangar.sqlite3';
export const LISTENING = /^Hangar listening on (http:\/\/(\S+):(\d+))$/;

/** How long a process may take to start listening or to finish a short command. */
export const START_TIMEOUT_MS = 20_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnOptions {
  /** extra environment variables; `undefined` removes one */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** text written to standard input, which is then closed; without it stdin is /dev/null */
  stdin?: string;
  /** options for Node itself, before the script (e.g. --trace-gc) */
  nodeArgs?: string[];
}

const live = new Set<CliProcess>();
const dirs = new Set<string>();

/**
 * The environment of a child: this process's, without any HANGAR_* setting (so the machine running
 * the tests cannot change what is tested) and without NODE_OPTIONS, plus `extra`. Servers started
 * by tests do not advertise themselves on the LAN (HANGAR_MDNS=0) unless a test asks.
 */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HANGAR_MDNS: '0' };
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('HANGAR_') || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export class CliProcess {
  readonly child: ChildProcess;
  readonly args: string[];
  stdout = '';
  stderr = '';
  exit: Exit | null = null;
  readonly exited: Promise<Exit>;
  private listeners = new Set<() => void>();

  constructor(args: string[], options: SpawnOptions = {}) {
    this.args = args;
    this.child = spawn(process.execPath, [...(options.nodeArgs ?? []), MAIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: childEnv(options.env),
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    live.add(this);
    this.child.stdout!.setEncoding('utf8');
    this.child.stderr!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.stdout += chunk;
      this.notify();
    });
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise((resolveExit) => {
      // 'close': the process has exited and its output streams are drained
      this.child.on('close', (code, signal) => {
        this.exit = { code, signal };
        live.delete(this);
        this.notify();
        resolveExit(this.exit);
      });
      this.child.on('error', (error) => {
        this.stderr += `\n[spawn error] ${error.message}`;
        this.exit = { code: null, signal: null };
        live.delete(this);
        this.notify();
        resolveExit(this.exit);
      });
    });
    if (options.stdin !== undefined) {
      this.child.stdin!.on('error', () => {}); // the child may exit without reading
      this.child.stdin!.end(options.stdin);
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Lines of stdout so far. */
  stdoutLines(): string[] {
    return this.stdout.split(/\r?\n/).filter((line) => line !== '');
  }

  describe(): string {
    return `hangar ${this.args.join(' ')} (pid ${this.pid})\n--- stdout ---\n${this.stdout}\n--- stderr ---\n${this.stderr}`;
  }

  /** Waits for a whole stdout line matching `pattern`; fails clearly on exit or timeout. */
  waitForLine(pattern: RegExp, timeoutMs = START_TIMEOUT_MS): Promise<RegExpMatchArray> {
    return new Promise((resolveLine, reject) => {
      const check = (): boolean => {
        for (const line of this.stdoutLines()) {
          const match = line.match(pattern);
          if (match) {
            done();
            resolveLine(match);
            return true;
          }
        }
        if (this.exit) {
          done();
          reject(new Error(`process exited (code ${this.exit.code}, signal ${this.exit.signal}) before printing a line matching ${pattern}\n${this.describe()}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no stdout line matching ${pattern} within ${timeoutMs} ms\n${this.describe()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      const listener = () => void check();
      this.listeners.add(listener);
      check();
    });
  }

  /** Waits for the process to end; rejects (leaving it running) when it takes longer than `timeoutMs`. */
  async waitForExit(timeoutMs = START_TIMEOUT_MS): Promise<Exit> {
    if (this.exit) return this.exit;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`process still running ${timeoutMs} ms later\n${this.describe()}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends a signal and measures how long the process takes to exit (rejects after `timeoutMs`). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 5_000): Promise<Exit & { ms: number }> {
    const started = Date.now();
    this.child.kill(signal);
    const exit = await this.waitForExit(timeoutMs);
    return { ...exit, ms: Date.now() - started };
  }

  /** Kills the process if it still runs and waits for it to be gone. */
  async kill(): Promise<void> {
    if (this.exit) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

export interface ServeProcess {
  proc: CliProcess;
  /** the URL from the "Hangar listening on" line */
  listening: string;
  host: string;
  port: number;
  /** a URL that reaches the server from here (0.0.0.0 replaced by 127.0.0.1) */
  url: string;
}

/** Starts `hangar serve ARGS` and waits for its "Hangar listening on" line. */
export async function startServe(args: string[], options: SpawnOptions = {}): Promise<ServeProcess> {
  const proc = new CliProcess(['serve', ...args], options);
  const match = await proc.waitForLine(LISTENING);
  const host = match[2]!;
  const port = Number(match[3]);
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  return { proc, listening: match[1]!, host, port, url: `http://${local}:${port}` };
}

export interface RunResult extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (at most `timeoutMs`). */
export async function runCli(args: string[], options: SpawnOptions & { timeoutMs?: number } = {}): Promise<RunResult> {
  const proc = new CliProcess(args, options);
  const exit = await proc.waitForExit(options.timeoutMs ?? START_TIMEOUT_MS);
  return { ...exit, stdout: proc.stdout, stderr: proc.stderr };
}

/** A new, empty temporary directory, removed by cleanupCli(). */
export async function tempDir(prefix = 'hangar-cli-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

/** A port that was free a moment ago (for tests of HANGAR_PORT, which cannot use 0). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Kills every process still running and removes every temporary directory. */
export async function cleanupCli(): Promise<void> {
  await Promise.all([...live].map((proc) => proc.kill()));
  await Promise.all([...dirs].map((dir) => rm(dir, { recursive: true, force: true })));
  dirs.clear();
}

/** Installs cleanupCli() after each test and after the file. */
export function useCliCleanup(): void {
  afterEach(cleanupCli);
  afterAll(cleanupCli);
}

/** Runs `read` against a read-only connection to a data directory's database. */
export function withDatabase<T>(dataDir: string, read: (sql: Database.Database) => T): T {
  const file = join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) throw new Error(`no database at ${file}`);
  const sql = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return read(sql);
  } finally {
    sql.close();
  }
}

/** A GET/POST with a bearer token, answering status and parsed body. */
export async function api(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; json?: unknown; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  } else if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const response = await fetch(new URL(path, baseUrl), { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, text };
}
