/**
 * The live events stream (GET /api/events, server-sent events): one EventSource per signed-in
 * console, shared by every page that listens. EventSource reconnects by itself after a network
 * blip (the server asks for a 3 s retry); if the server refuses the stream (401/403: the session or
 * token ended) it stays closed, and the state says so.
 */
import type { LiveEvent, LiveEventType } from './types.ts';
import { LIVE_EVENT_TYPES } from './types.ts';

export type LiveState = 'connecting' | 'open' | 'closed';

type Listener = (event: LiveEvent) => void;

export class LiveEvents {
  private readonly source: EventSource;
  private readonly listeners = new Set<Listener>();
  private readonly stateListeners = new Set<(state: LiveState) => void>();
  state: LiveState = 'connecting';

  constructor(url: string, withCredentials: boolean) {
    this.source = new EventSource(url, { withCredentials });
    this.source.onopen = () => this.setState('open');
    this.source.onerror = () => this.setState(this.source.readyState === EventSource.CLOSED ? 'closed' : 'connecting');
    for (const type of LIVE_EVENT_TYPES) this.source.addEventListener(type, (message) => this.dispatch(type, message));
  }

  private dispatch(type: LiveEventType, message: MessageEvent<string>): void {
    let data: LiveEvent;
    try {
      data = { ...(JSON.parse(message.data) as object), type } as LiveEvent;
    } catch {
      return; // not an event this console understands
    }
    for (const listener of this.listeners) listener(data);
  }

  private setState(state: LiveState): void {
    this.state = state;
    for (const listener of this.stateListeners) listener(state);
  }

  /** Listens to every event; returns the function that stops listening. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onState(listener: (state: LiveState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  close(): void {
    this.source.close();
    this.listeners.clear();
    this.stateListeners.clear();
  }
}
