/**
 * The console's root: finds out how it reaches the server and who is signed in (api/connection.ts),
 * then shows the sign-in page or the console. Language and appearance follow the signed-in user's
 * settings (`locale`, `appearance`, `timezone`); before sign-in, the browser's.
 */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { HashRouter } from 'react-router';
import { browserConnection, currentSession, desktopConnection, inDesktopApp, signOut, type Connection } from './api/connection.ts';
import { endpoints } from './api/endpoints.ts';
import { asApiError, type ApiError } from './api/errors.ts';
import { LiveEvents } from './api/events.ts';
import { Http } from './api/http.ts';
import type { Appearance, SessionBody, User } from './api/types.ts';
import { ErrorNotice } from './components/ErrorNotice.tsx';
import { Loading } from './components/Status.tsx';
import { browserLocale, I18nProvider, useI18n } from './i18n/i18n.tsx';
import { ConsoleRoutes } from './routes.tsx';
import { SessionContext, type DesktopServer, type Session } from './session.tsx';
import { SettingsPage } from './pages/SettingsPage.tsx';
import { SignInPage } from './pages/SignInPage.tsx';

interface SignedIn {
  connection: Connection;
  user: User;
  desktop: DesktopServer | null;
  /** the browser session's CSRF token (signing out needs it); null in the desktop app */
  csrfToken: string | null;
}

type Boot =
  | { stage: 'starting' }
  | { stage: 'signed-out'; ended: boolean }
  | { stage: 'failed'; error: ApiError }
  /** the desktop app's server is not running: paused from the tray, or its start failed */
  | { stage: 'paused'; failed: boolean }
  | ({ stage: 'signed-in' } & SignedIn);

/** Who is signed in and how to reach the server, or why the console cannot start. */
async function start(): Promise<Boot> {
  if (inDesktopApp()) {
    const server = await window.hangar.server();
    if (server.state === 'paused') return { stage: 'paused', failed: server.error !== undefined };
    const connection = desktopConnection(server.url, server.token);
    const user = await endpoints(new Http(connection, () => {})).users.me();
    return { stage: 'signed-in', connection, user, desktop: { lanUrl: server.lanUrl }, csrfToken: null };
  }
  const session = await currentSession();
  return session ? { stage: 'signed-in', ...browserSignedIn(session) } : { stage: 'signed-out', ended: false };
}

function browserSignedIn(session: SessionBody): SignedIn {
  const csrfToken = session.csrf_token ?? '';
  return { connection: browserConnection(csrfToken), user: session.user, desktop: null, csrfToken };
}

/** Applies the appearance to the page: light, dark, or the system's (CSS `color-scheme`). */
function useAppearance(appearance: Appearance): void {
  useEffect(() => {
    document.documentElement.dataset.appearance = appearance;
  }, [appearance]);
}

export function App() {
  const [boot, setBoot] = useState<Boot>({ stage: 'starting' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    start().then(
      (started) => current && setBoot(started),
      (error: unknown) => current && setBoot({ stage: 'failed', error: asApiError(error) }),
    );
    return () => {
      current = false;
    };
  }, [attempt]);

  // The desktop app's main process asks for a page (a notification was clicked, the tray's "show QR").
  useEffect(() => (inDesktopApp() ? window.hangar.onNavigate((route) => (window.location.hash = route.replace(/^#/, ''))) : undefined), []);

  const user = boot.stage === 'signed-in' ? boot.user : null;
  useAppearance(user?.appearance ?? 'auto');
  const locale = user?.locale ?? browserLocale();
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  const restart = useCallback(() => setAttempt((n) => n + 1), []);
  // A 401 mid-session: the browser signs in again; the desktop app asks its main process again
  // (the server restarted with a new operator token).
  const sessionEnded = useCallback(() => (inDesktopApp() ? restart() : setBoot({ stage: 'signed-out', ended: true })), [restart]);
  const userChanged = useCallback((changed: User) => setBoot((b) => (b.stage === 'signed-in' ? { ...b, user: changed } : b)), []);
  const signedOut = useCallback(() => setBoot({ stage: 'signed-out', ended: false }), []);

  return (
    <I18nProvider locale={locale} timeZone={user?.timezone}>
      {boot.stage === 'starting' && <Starting />}
      {boot.stage === 'failed' && (
        <StartFailed>
          <ErrorNotice error={boot.error} onRetry={restart} />
        </StartFailed>
      )}
      {boot.stage === 'paused' && (
        <StartFailed>
          <ServerNotRunning failed={boot.failed} onRetry={restart} />
        </StartFailed>
      )}
      {boot.stage === 'signed-out' && (
        <SignInPage
          ended={boot.ended}
          onSignedIn={(session) => setBoot({ stage: 'signed-in', ...browserSignedIn(session) })}
        />
      )}
      {boot.stage === 'signed-in' && (
        <SignedInConsole
          signedIn={boot}
          onUserChange={userChanged}
          onSessionEnded={sessionEnded}
          onSignedOut={signedOut}
        />
      )}
    </I18nProvider>
  );
}

function Starting() {
  const { t } = useI18n();
  return (
    <main className="centered">
      <Loading label={t('boot.starting')} />
    </main>
  );
}

/**
 * The console cannot start: the server could not be reached or refused it, or (desktop app) is not
 * running. In the desktop app its settings page follows (it needs no server): a taken port or a
 * wrong data folder is fixed there.
 */
function StartFailed({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  return (
    <main className="start-failed">
      <div className="card narrow">
        <h1>{t('boot.failed')}</h1>
        {children}
      </div>
      {inDesktopApp() && (
        <HashRouter>
          <SettingsPage />
        </HashRouter>
      )}
    </main>
  );
}

/** Why is for the settings page under it to say (it reads the main process's own account). */
function ServerNotRunning({ failed, onRetry }: { failed: boolean; onRetry(): void }) {
  const { t } = useI18n();
  return (
    <div className="notice warning" role="alert">
      <p>{failed ? t('boot.startFailed') : t('boot.paused')}</p>
      <button type="button" onClick={onRetry}>
        {t('common.retry')}
      </button>
    </div>
  );
}

interface SignedInConsoleProps {
  signedIn: SignedIn;
  onUserChange(user: User): void;
  onSessionEnded(): void;
  onSignedOut(): void;
}

function SignedInConsole({ signedIn, onUserChange, onSessionEnded, onSignedOut }: SignedInConsoleProps) {
  const { connection, user, desktop, csrfToken } = signedIn;
  const api = useMemo(() => endpoints(new Http(connection, onSessionEnded)), [connection, onSessionEnded]);
  // One events stream per signed-in console, closed when it signs out or reconnects.
  const [live, setLive] = useState<LiveEvents | null>(null);
  useEffect(() => {
    const events = new LiveEvents(connection.eventsUrl, connection.credentials !== 'omit');
    setLive(events);
    return () => events.close();
  }, [connection]);

  const session = useMemo<Session | null>(
    () =>
      live && {
        api,
        user,
        live,
        desktop,
        setUser: onUserChange,
        signOut: csrfToken === null ? null : () => signOut(csrfToken).then(onSignedOut),
      },
    [api, user, live, desktop, csrfToken, onUserChange, onSignedOut],
  );
  if (!session) return null;
  return (
    <SessionContext.Provider value={session}>
      <HashRouter>
        <ConsoleRoutes />
      </HashRouter>
    </SessionContext.Provider>
  );
}
