/**
 * A DNS-SD browser over real multicast (the multicast-dns package), asking as a CI agent or console
 * browsing for Hangar would, and the check whether multicast works here at all: containers often have
 * no multicast route. That check does not involve Hangar's code: the querier asks for a name it
 * answers itself, so a broken advertisement fails its tests instead of skipping them.
 */
import { randomBytes } from 'node:crypto';
import type { Answer } from 'dns-packet';
import makeMdns from 'multicast-dns';

export type MdnsRecord = Answer;

export interface Heard {
  /** answers and additionals of every response heard so far */
  readonly records: MdnsRecord[];
  stop(): void;
}

export interface MdnsQuerier {
  /** why multicast does not work here, or null when it does */
  readonly unavailable: string | null;
  /** Starts collecting the records of the responses heard. */
  listen(): Heard;
  /**
   * Asks "PTR `name`?" once a second, until `done` holds for the records heard since the first
   * question or `ms` have passed; those records.
   */
  browse(name: string, done: (records: MdnsRecord[]) => boolean, ms?: number): Promise<MdnsRecord[]>;
  close(): Promise<void>;
}

const PROBE_MS = 3_000;
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value (not undefined) or `ms` pass. */
async function poll<T>(check: () => T | undefined, ms: number): Promise<T | undefined> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(POLL_MS)) {
    const value = check();
    if (value !== undefined) return value;
  }
  return check();
}

export async function openQuerier(): Promise<MdnsQuerier> {
  const mdns = makeMdns();
  const listeners = new Set<(records: MdnsRecord[]) => void>();
  mdns.on('response', (response) => {
    for (const listener of listeners) listener([...response.answers, ...response.additionals]);
  });
  const listen = (): Heard => {
    const records: MdnsRecord[] = [];
    const listener = (more: MdnsRecord[]) => records.push(...more);
    listeners.add(listener);
    return { records, stop: () => listeners.delete(listener) };
  };

  const unavailable = await probe(mdns, listen);
  return {
    unavailable,
    listen,
    async browse(name, done, ms = 5_000) {
      const heard = listen();
      try {
        for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
          mdns.query([{ name, type: 'PTR' }]);
          if (await poll(() => (done(heard.records) ? true : undefined), Math.min(1_000, deadline - Date.now()))) break;
        }
        return heard.records;
      } finally {
        heard.stop();
      }
    },
    close: () => new Promise((resolve) => mdns.destroy(() => resolve())),
  };
}

/** Asks for an A record this querier answers itself; null when the answer comes back in time, else why not. */
async function probe(mdns: makeMdns.MulticastDNS, listen: () => Heard): Promise<string | null> {
  const name = `hangar-probe-${randomBytes(4).toString('hex')}.local`;
  let failure: string | undefined;
  mdns.on('error', (error: Error) => (failure = `the mDNS socket failed: ${error.message}`));
  const answer = (query: makeMdns.QueryPacket) => {
    if (query.questions.some((q) => q.name === name)) mdns.respond([{ name, type: 'A', ttl: 1, data: '127.0.0.1' }]);
  };
  mdns.on('query', answer);
  const heard = listen();
  mdns.query([{ name, type: 'A' }], (error) => {
    if (error) failure = `sending to the mDNS group failed: ${error.message}`;
  });
  const answered = await poll(() => failure ?? (heard.records.some((r) => r.name === name) ? null : undefined), PROBE_MS);
  heard.stop();
  mdns.off('query', answer);
  return answered === undefined ? `a multicast question this process answers itself got no answer within ${PROBE_MS / 1000} s (no multicast route?)` : answered;
}
