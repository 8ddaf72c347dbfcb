/**
 * How this console reaches the server and proves who it is, decided once at start-up:
 *
 * - desktop: the Electron preload exposes `window.hangar`; its server URL and the operator token the
 *   main process minted for this run authenticate every request (`Authorization: Bearer`) and the
 *   live events stream (`?token=`, as EventSource cannot send headers);
 * - browser: the console is served by the server at /console/; a session cookie authenticates, and
 *   every request that changes something carries the session's CSRF token.
 */
import { errorFromBody, networkError } from './errors.ts';
import type { SessionBody } from './types.ts';

export const SHAPE_HEADERS = { 'X-Api-Shape': 'extended' } as const;

export interface Connection {
  readonly mode: 'desktop' | 'browser';
  /** the server's origin as this console reaches it, e.g. http://127.0.0.1:7700 */
  readonly origin: string;
  /** headers that authenticate a request made with `method` */
  authHeaders(method: string): Record<string, string>;
  /** whether requests send the session cookie */
  readonly credentials: RequestCredentials;
  /** the live events stream */
  readonly eventsUrl: string;
}

export function desktopConnection(url: string, token: string): Connection {
  const origin = url.replace(/\/+$/, '');
  return {
    mode: 'desktop',
    origin,
    authHeaders: () => ({ Authorization: `Bearer ${token}` }),
    credentials: 'omit',
    eventsUrl: `${origin}/api/events?token=${encodeURIComponent(token)}`,
  };
}

export function browserConnection(csrfToken: string): Connection {
  const origin = window.location.origin;
  return {
    mode: 'browser',
    origin,
    authHeaders: (method): Record<string, string> => (method === 'GET' || method === 'HEAD' ? {} : { 'X-CSRF-Token': csrfToken }),
    credentials: 'same-origin',
    eventsUrl: `${origin}/api/events`,
  };
}

/** Whether the console runs in the desktop app (the preload gave it `window.hangar`). */
export function inDesktopApp(): boolean {
  return typeof window.hangar === 'object' && window.hangar !== null;
}

async function sessionRequest(method: 'GET' | 'POST' | 'DELETE', body?: unknown, csrfToken?: string): Promise<Response> {
  try {
    return await fetch('/api/session', {
      method,
      credentials: 'same-origin',
      headers: {
        ...SHAPE_HEADERS,
        Accept: 'application/json',
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
        ...(csrfToken && { 'X-CSRF-Token': csrfToken }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw networkError(error);
  }
}

async function sessionBody(response: Response): Promise<SessionBody> {
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw errorFromBody(response.status, body, response.headers.get('Retry-After'));
  return body as SessionBody;
}

/** The browser's current session, or null when it has none (401). */
export async function currentSession(): Promise<SessionBody | null> {
  const response = await sessionRequest('GET');
  if (response.status === 401) return null;
  return sessionBody(response);
}

/** Signs in with a username or email and a password. */
export async function signIn(login: string, password: string): Promise<SessionBody> {
  return sessionBody(await sessionRequest('POST', { login, password }));
}

export async function signOut(csrfToken: string): Promise<void> {
  const response = await sessionRequest('DELETE', undefined, csrfToken);
  if (!response.ok && response.status !== 401) throw errorFromBody(response.status, await response.json().catch(() => null));
}
