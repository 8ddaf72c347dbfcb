/**
 * A cache of serialized answers for what devices and SDKs poll (`latest`, `versions`,
 * `version_exist`): many clients, few changes. An entry is valid for the version of the data it was
 * built from (storage/database.ts `changes()`: every write through the server's connection moves
 * it), so a new upload, a renamed channel or a deleted release is seen by the very next request.
 * Keys hold what else shapes an answer: the API shape, the public base URL and the request URL.
 */

export class ResponseCache {
  private readonly entries = new Map<string, { version: number; body: string }>();
  private readonly version: () => number;
  private readonly capacity: number;

  constructor(version: () => number, capacity = 2_000) {
    this.version = version;
    this.capacity = capacity;
  }

  /** The cached body for `key`, built for the current data; else builds, stores and returns it. */
  get(key: string, build: () => unknown): string {
    const version = this.version();
    const entry = this.entries.get(key);
    if (entry && entry.version === version) return entry.body;
    const body = JSON.stringify(build());
    if (this.entries.size >= this.capacity) this.entries.clear(); // simple and bounded
    this.entries.set(key, { version, body });
    return body;
  }
}
