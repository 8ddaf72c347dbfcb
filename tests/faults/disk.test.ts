/**
 * The disk itself failing (issue 7, faults), for real: `hangar serve` runs in a mount namespace of
 * its own with its data directory on a small tmpfs (unshare + mount; needs root or unprivileged user
 * namespaces, else these tests skip and tests/api/upload-faults.test.ts (b) covers ENOSPC through an
 * injected file store). The test looks into that file system through /proc/<pid>/root, and makes
 * parts of it read-only with nsenter.
 *
 * - the file system fills up mid-upload: 507 with an error, the temporary file removed, the next
 *   upload that fits goes in;
 * - the data directory's `files/` and `tmp/` become read-only while the server runs: uploads fail
 *   with a 5xx and an error, reads (listings, downloads) keep working, the server keeps running;
 * - the data directory is read-only at start: a one-line message and exit code 1.
 *
 * Making the directories read-only with chmod, as an operator might, proves nothing here: these tests
 * run as root, which chmod does not stop. A read-only mount stops everyone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, childEnv, LISTENING, MAIN, START_TIMEOUT_MS, tempDir, useCliCleanup } from '../cli/spawn.ts';
import { fixture, fixturesMissing } from '../helpers/fixtures.ts';
import { uploadRaw } from '../helpers/multipart.ts';

useCliCleanup();

const ADMIN = 'hgr_disk-tests-admin-0123456789abcdef';
const SMALL_APK = fixture('android', 'contactmanager-1.0-vc1-minsdk5-v1signed.apk');

/** Whether this machine lets us make a mount namespace with a tmpfs in it. */
const canMount = spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs /mnt'], { stdio: 'ignore' }).status === 0;

/** A `hangar serve` whose data directory is `<root>/data` on a tmpfs of `sizeMb` MiB at `root`, read-only from the start when asked. */
class MountedServer {
  readonly child: ChildProcess;
  readonly root: string;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(root: string, sizeMb: number, readOnly = false) {
    this.root = root;
    const script = `mount -t tmpfs -o size=${sizeMb}m tmpfs "$0" && ${readOnly ? 'mount -o remount,ro "$0" && ' : ''}exec "$@"`;
    const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--https-port', 'off', '--data', join(root, 'data')];
    this.child = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, root, process.execPath, MAIN, ...args], {
      env: childEnv({ HANGAR_ADMIN_TOKEN: ADMIN, HANGAR_LOG_STDOUT: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(this);
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  /** The URL of the server once it listens. */
  async url(): Promise<string> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const match = this.stdout.split('\n').map((line) => line.match(LISTENING)).find(Boolean);
      if (match) return match[1]!;
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`not listening\n${this.stdout}\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** A path of the data directory as the server sees it. */
  path(...parts: string[]): string {
    return join(`/proc/${this.child.pid}/root`, this.root, 'data', ...parts);
  }

  /**
   * Makes `tmp/` and `files/` of the data directory read-only (a read-only bind mount over each), or
   * writable again. (The whole file system cannot be remounted read-only under a running server: the
   * kernel refuses while the database and the log are open for writing.)
   */
  readOnly(on: boolean): void {
    const dirs = ['tmp', 'files'].map((d) => join(this.root, 'data', d));
    const script = on ? dirs.map((d) => `mount --bind "${d}" "${d}" && mount -o remount,bind,ro "${d}"`).join(' && ') : `umount ${dirs.map((d) => `"${d}"`).join(' ')}`;
    const result = spawnSync('nsenter', ['-t', String(this.child.pid), '-m', 'sh', '-c', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await this.exited;
    running.delete(this);
  }
}

const running = new Set<MountedServer>();
afterEach(async () => {
  await Promise.all([...running].map((server) => server.stop()));
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe.skipIf(!canMount || fixturesMissing !== null)('a real disk that fills up or turns read-only', () => {
  const apk = () => readFileSync(SMALL_APK);
  const upload = (url: string, data: Buffer, filename = 'app.apk') => uploadRaw(url, [{ name: 'file', filename, data }], { bearer: ADMIN });

  it('full mid-upload: 507 with an error, the temporary file removed; an upload that fits goes in after', async () => {
    const server = new MountedServer(await tempDir('hangar-disk-full-'), 16);
    const url = await server.url();
    const tooBig = Buffer.alloc(32 * 1024 * 1024, 0x5a);
    const res = await upload(url, tooBig, 'huge.apk');
    expect(res.status, res.text).toBe(507);
    expect(res.body).toEqual({ error: 'The server is out of disk space' });
    expect(await readdir(server.path('tmp')), 'the temporary file is removed').toEqual([]);
    const ok = await upload(url, apk());
    expect(ok.status, ok.text).toBe(201);
    expect(server.child.exitCode, 'the server still runs').toBeNull();
  });

  it('read-only while running: uploads fail with a 5xx and an error, reads keep working, the server keeps running', async () => {
    const server = new MountedServer(await tempDir('hangar-disk-ro-'), 32);
    const url = await server.url();
    const first = await upload(url, apk());
    expect(first.status, first.text).toBe(201);

    server.readOnly(true);
    const refused = await upload(url, apk());
    expect(refused.status, refused.text).toBe(507);
    expect(refused.body.error, refused.text).toMatch(/cannot write to its data folder \(read-only\)/);
    expect(refused.body.error).not.toContain(server.root); // no server paths

    const health = await api(url, 'GET', '/api/health');
    expect(health.status).toBe(200);
    const app = await api(url, 'GET', `/api/apps/${first.body.app.id}`, { token: ADMIN });
    expect(app.status, app.text).toBe(200);
    const download = await fetch(new URL(`/download/releases/${first.body.id}`, url), { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(download.status).toBe(200);
    expect(sha256(Buffer.from(await download.arrayBuffer())), 'the stored build downloads whole').toBe(sha256(apk()));
    expect(server.child.exitCode, 'the server still runs').toBeNull();

    server.readOnly(false);
    const again = await upload(url, apk());
    expect(again.status, again.text).toBe(201);
  });

  it('read-only at start: a one-line message on stderr and exit code 1', async () => {
    const server = new MountedServer(await tempDir('hangar-disk-ro-start-'), 8, true);
    expect(await server.exited).toBe(1);
    expect(server.stdout).not.toMatch(/Hangar listening/);
    expect(server.stderr.trim()).toMatch(/^hangar: [^\n]+$/);
    expect(server.stderr).toMatch(/data (folder|directory).*(read-only|not writable)|read-only file system/i);
  });
});
