/**
 * The signed-in console: who the user is, the API calls made as them, the live events stream, and
 * (in the desktop app) what the main process says about the server it runs. Pages read it with
 * useSession(); it exists only once someone is signed in (App.tsx decides).
 */
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { Api } from './api/endpoints.ts';
import type { LiveEvents, LiveState } from './api/events.ts';
import type { LiveEvent, User } from './api/types.ts';

export interface DesktopServer {
  /** the URL devices on the LAN use */
  lanUrl: string;
}

export interface Session {
  api: Api;
  user: User;
  live: LiveEvents;
  /** the desktop app's server; null in a browser */
  desktop: DesktopServer | null;
  /** after the user's own settings changed */
  setUser(user: User): void;
  /** null in the desktop app, which is always signed in */
  signOut: (() => Promise<void>) | null;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession() outside a signed-in console');
  return session;
}

export function useApi(): Api {
  return useSession().api;
}

export function isAdmin(user: User): boolean {
  return user.role === 'admin';
}

/** Global admins and developers manage every app (R16). */
export function managesEveryApp(user: User): boolean {
  return user.role === 'admin' || user.role === 'developer';
}

/** Calls `handler` with every live event while the component is shown. */
export function useLiveEvents(handler: (event: LiveEvent) => void): void {
  const { live } = useSession();
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => live.subscribe((event) => latest.current(event)), [live]);
}

export function useLiveState(): LiveState {
  const { live } = useSession();
  const [state, setState] = useState(live.state);
  useEffect(() => {
    setState(live.state);
    return live.onState(setState);
  }, [live]);
  return state;
}
