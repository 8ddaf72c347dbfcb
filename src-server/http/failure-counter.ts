/**
 * Counting failed authentications per client, for the token brute-force limit (access.ts): fixed
 * windows per client with bounded memory, and what "one client" is (an IPv4 address, or an IPv6 /64).
 */

/** Failed token authentications one client may make in a window; beyond them its token requests get 429. */
export const TOKEN_FAILURES = { max: 20, windowMs: 5 * 60_000 };

/** Clients the counter remembers at most; past that, the oldest window is forgotten. */
export const TOKEN_FAILURE_CLIENTS = 10_000;

/**
 * Failures per client in fixed windows, each starting at the client's first failure. Memory stays
 * bounded: an expired window is dropped when next met, and past `capacity` clients the one whose
 * window started first (the first in the map's insertion order) is forgotten.
 */
export function failureCounter(options: { max: number; windowMs: number; capacity: number }, now: () => number) {
  const windows = new Map<string, { count: number; startedAt: number }>();

  function current(client: string) {
    const window = windows.get(client);
    if (window && now() - window.startedAt >= options.windowMs) {
      windows.delete(client);
      return undefined;
    }
    return window;
  }

  return {
    /** Milliseconds until the client may try again; 0 when it may now. */
    waitOf(client: string): number {
      const window = current(client);
      return window && window.count >= options.max ? window.startedAt + options.windowMs - now() : 0;
    },

    /** Counts a failure; answers the client's count in its window. */
    fail(client: string): number {
      let window = current(client);
      if (!window) {
        if (windows.size >= options.capacity) windows.delete(windows.keys().next().value!);
        window = { count: 0, startedAt: now() };
        windows.set(client, window);
      }
      return ++window.count;
    },

    /** clients remembered now */
    get size(): number {
      return windows.size;
    },
  };
}

export type FailureCounter = ReturnType<typeof failureCounter>;

/**
 * Who a failure is counted against: an IPv4 address (IPv4-mapped IPv6 included), or the /64 network
 * of an IPv6 address, since one host commonly holds a whole /64.
 */
export function clientOf(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.split('%')[0]!.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`;
}
