/**
 * A server-sent events reader for tests: connects with fetch, parses `event:`/`data:` blocks as they
 * arrive, and waits for expected events with a timeout that fails with what did arrive.
 */

export interface SseEvent {
  event: string;
  data: any;
  raw: string;
}

export class SseStream {
  readonly status: number;
  readonly headers: Headers;
  readonly events: SseEvent[] = [];
  /** true once the server ended the stream (or it failed) */
  ended = false;
  endedAt: number | null = null;
  private readonly controller: AbortController;
  private readonly waiters = new Set<() => void>();
  private buffer = '';

  private constructor(response: Response, controller: AbortController) {
    this.status = response.status;
    this.headers = response.headers;
    this.controller = controller;
    if (response.ok && response.body) void this.pump(response.body);
    else this.finish();
  }

  /** Opens `url` (with a Bearer token when given). */
  static async open(url: string, token: string | null, headers: Record<string, string> = {}): Promise<SseStream> {
    const controller = new AbortController();
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers, ...(token !== null && { authorization: `Bearer ${token}` }) },
      signal: controller.signal,
    });
    return new SseStream(response, controller);
  }

  private finish(): void {
    if (!this.ended) {
      this.ended = true;
      this.endedAt = Date.now();
    }
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.search(/\r?\n\r?\n/)) !== -1) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end).replace(/^\r?\n\r?\n/, '');
          this.parseBlock(block);
        }
      }
    } catch {
      // aborted or cut
    } finally {
      this.finish();
    }
  }

  private parseBlock(block: string): void {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return;
    const text = data.join('\n');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { unparsable: text };
    }
    this.events.push({ event, data: parsed, raw: block });
    this.notify();
  }

  /** Waits until `predicate` holds for the events received so far; fails clearly after `timeoutMs`. */
  async waitFor(what: string, predicate: (events: SseEvent[]) => boolean, timeoutMs = 5_000): Promise<SseEvent[]> {
    if (predicate(this.events)) return this.events;
    return new Promise((resolve, reject) => {
      const check = () => {
        if (predicate(this.events)) {
          cleanup();
          resolve(this.events);
        } else if (this.ended) {
          cleanup();
          reject(new Error(`the event stream ended before ${what}; received: ${this.describe()}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received: ${this.describe()}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  /** Waits for an event of `type` matching `match` (on its data); answers it. */
  async next(type: string, match: Record<string, unknown> = {}, timeoutMs = 5_000): Promise<SseEvent> {
    const matches = (e: SseEvent) => e.event === type && Object.entries(match).every(([k, v]) => e.data?.[k] === v);
    await this.waitFor(`an event ${type} ${JSON.stringify(match)}`, (events) => events.some(matches), timeoutMs);
    return this.events.find(matches)!;
  }

  /** Waits until the server ends the stream; answers how long that took. */
  async waitForEnd(timeoutMs: number): Promise<void> {
    await this.waitFor('the end of the stream', () => this.ended, timeoutMs);
  }

  describe(): string {
    return this.events.length === 0 ? '(nothing)' : this.events.map((e) => `${e.event} ${JSON.stringify(e.data)}`).join('; ');
  }

  close(): void {
    this.controller.abort();
  }
}
