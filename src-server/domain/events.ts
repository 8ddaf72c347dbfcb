/**
 * The in-process event bus (R13): domain services announce what happened; the SSE route streams it
 * to consoles, the webhook dispatcher turns it into deliveries, the desktop app into notifications.
 */
import { EventEmitter } from 'node:events';

/** What happens to an app's releases: seen by those who may read the app. */
export type ReleaseEvent =
  | { type: 'release.created'; appId: number; schemeId: number; channelId: number; releaseId: number; newBuildCallout: boolean }
  | { type: 'release.updated'; appId: number; channelId: number; releaseId: number; changelogChanged: boolean }
  | { type: 'release.deleted'; appId: number; channelId: number; releaseId: number; reason: 'request' | 'retention' }
  | { type: 'release.downloaded'; appId: number; channelId: number; releaseId: number }
  /** a new build that its scheme wants announced (new_build_callout on) */
  | { type: 'build.available'; appId: number; schemeId: number; channelId: number; releaseId: number };

/** What happens to the server itself: seen by every signed-in console. */
export type ServerEvent =
  /** the machine's LAN addresses changed (DHCP, another network): absolute URLs and QR codes follow */
  { type: 'server.address_changed'; primary: string; addresses: string[]; baseUrl: string; secureBaseUrl: string };

export type HangarEvent = ReleaseEvent | ServerEvent;

export function isReleaseEvent(event: HangarEvent): event is ReleaseEvent {
  return 'releaseId' in event;
}

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0); // one listener per open console
  }

  emit(event: HangarEvent): void {
    this.emitter.emit('event', event);
  }

  /** Subscribes; returns the function that unsubscribes. A listener's error never reaches the emitter. */
  subscribe(listener: (event: HangarEvent) => void): () => void {
    const safe = (event: HangarEvent) => {
      try {
        listener(event);
      } catch {
        // a broken listener must not break an upload
      }
    };
    this.emitter.on('event', safe);
    return () => this.emitter.off('event', safe);
  }
}
