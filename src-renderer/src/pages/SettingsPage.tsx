/**
 * The desktop app's settings (what its main process keeps with electron-store and starts the server
 * with), read and written through `window.hangar.settings`; desktop only, since a browser has no
 * `window.hangar`. Fields are checked as they are typed with the main process's own rules
 * (src-main/settings-rules.ts), which checks them again on save together with the server's rules.
 * Changes the running server cannot take at once say so, with a button that restarts it.
 *
 * Nothing here talks to the server's API, so the page works while the server is paused or could not
 * start (e.g. its port was taken), which is when it is needed most.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { DesktopSettings, ServerConnection } from '../../../src-main/hangar-api.ts';
import { checkSettings, type SettingsProblem } from '../../../src-main/settings-rules.ts';
import { inDesktopApp } from '../api/connection.ts';
import { Checkbox, Field } from '../components/Field.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { Loading } from '../components/Status.tsx';
import { useI18n, type MessageKey } from '../i18n/i18n.tsx';

/** The form's state: text as typed (ports too), empty text for "automatic". */
interface Draft {
  port: string;
  https: boolean;
  httpsPort: string;
  dataDir: string;
  baseUrl: string;
  networkInterface: string;
  apiShape: DesktopSettings['apiShape'];
  mdns: boolean;
  startAtLogin: boolean;
  minimizeToTray: boolean;
}

function draftOf(settings: DesktopSettings): Draft {
  return {
    ...settings,
    port: String(settings.port),
    https: settings.httpsPort !== null,
    httpsPort: String(settings.httpsPort ?? 7701),
    baseUrl: settings.baseUrl ?? '',
    networkInterface: settings.networkInterface ?? '',
  };
}

/** A port as typed: its number, or the text itself for the rules to refuse. */
const portOf = (text: string): unknown => (/^\d{1,5}$/.test(text.trim()) ? Number(text.trim()) : text);
const optional = (text: string): string | null => (text.trim() === '' ? null : text.trim());

function settingsOf(draft: Draft): Record<keyof DesktopSettings, unknown> {
  return {
    port: portOf(draft.port),
    httpsPort: draft.https ? portOf(draft.httpsPort) : null,
    dataDir: draft.dataDir.trim(),
    baseUrl: optional(draft.baseUrl),
    networkInterface: optional(draft.networkInterface),
    apiShape: draft.apiShape,
    mdns: draft.mdns,
    startAtLogin: draft.startAtLogin,
    minimizeToTray: draft.minimizeToTray,
  };
}

const PROBLEMS: Record<SettingsProblem, MessageKey> = {
  port: 'settings.problem.port',
  dataDir: 'settings.problem.dataDir',
  text: 'settings.problem.text',
  apiShape: 'settings.problem.apiShape',
  boolean: 'settings.problem.boolean',
};

/** A refusal from the main process, as the user should read it. */
const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function SettingsPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeader title={t('settings.title')}>
        <p className="hint">{t('settings.intro')}</p>
      </PageHeader>
      {inDesktopApp() ? <DesktopSettingsForm /> : <p className="notice info">{t('settings.browserOnly')}</p>}
    </>
  );
}

function DesktopSettingsForm() {
  const { t } = useI18n();
  const hangar = window.hangar;
  const [draft, setDraft] = useState<Draft | null>(null);
  const [server, setServer] = useState<ServerConnection | null>(null);
  const [restartNeeded, setRestartNeeded] = useState(false);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      // An empty change saves nothing and says whether the running server still needs a restart
      // for what was saved before (here or on an earlier visit).
      const [current, connection] = await Promise.all([hangar.settings.set({}), hangar.server()]);
      setDraft(draftOf(current.saved));
      setRestartNeeded(current.restartNeeded);
      setServer(connection);
    } catch (error) {
      setFailure(reasonOf(error));
    }
  }, [hangar]);
  useEffect(() => void load(), [load]);

  if (!draft) return failure ? <p role="alert" className="notice error">{failure}</p> : <Loading />;

  const problems = checkSettings(settingsOf(draft));
  const change = (fields: Partial<Draft>) => {
    setDraft({ ...draft, ...fields });
    setSaved(false);
  };
  const problemOf = (name: keyof DesktopSettings) => {
    const problem = problems[name];
    return problem ? (
      <span role="alert" className="notice error compact">
        {t(PROBLEMS[problem])}
      </span>
    ) : undefined;
  };

  /** Runs a call to the main process, showing its refusal if it refuses. */
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setFailure(null);
    try {
      await work();
    } catch (error) {
      setFailure(reasonOf(error));
    } finally {
      setBusy(false);
    }
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(problems).length > 0) return;
    void act(async () => {
      const result = await hangar.settings.set(settingsOf(draft) as DesktopSettings);
      setDraft(draftOf(result.saved));
      setRestartNeeded(result.restartNeeded);
      setSaved(true);
    });
  };

  const restart = () =>
    act(async () => {
      const connection = await hangar.restartServer();
      setServer(connection);
      if (connection.state !== 'running') throw new Error(t('settings.restartFailed', { reason: connection.error ?? '' }));
      // The server has a new operator token (and maybe a new address): the console starts afresh.
      window.location.reload();
    });

  const pickDataDir = () =>
    act(async () => {
      const folder = await hangar.pickFolder(t('settings.dataDir.pick'));
      if (folder) change({ dataDir: folder });
    });

  return (
    <form className="card settings" onSubmit={save} noValidate aria-labelledby="settings-server-title">
      <ServerStatus server={server} />
      {restartNeeded && (
        <div className="notice warning" role="status">
          <p>{t('settings.restartNeeded')}</p>
          <button type="button" className="primary" onClick={() => void restart()} disabled={busy}>
            {t('settings.restart')}
          </button>
        </div>
      )}

      <h2 id="settings-server-title">{t('settings.server')}</h2>
      <Field label={t('settings.port')} hint={problemOf('port') ?? t('settings.port.hint')}>
        {(props) => <input {...props} inputMode="numeric" value={draft.port} aria-invalid={problems.port !== undefined} onChange={(e) => change({ port: e.target.value })} />}
      </Field>
      <Checkbox label={t('settings.https')} hint={t('settings.https.hint')} checked={draft.https} onChange={(https) => change({ https })} />
      {draft.https && (
        <Field label={t('settings.httpsPort')} hint={problemOf('httpsPort') ?? t('settings.port.hint')}>
          {(props) => (
            <input {...props} inputMode="numeric" value={draft.httpsPort} aria-invalid={problems.httpsPort !== undefined} onChange={(e) => change({ httpsPort: e.target.value })} />
          )}
        </Field>
      )}
      <Field label={t('settings.baseUrl')} hint={problemOf('baseUrl') ?? t('settings.baseUrl.hint')}>
        {(props) => <input {...props} type="url" placeholder={t('settings.automatic')} value={draft.baseUrl} onChange={(e) => change({ baseUrl: e.target.value })} />}
      </Field>
      <Field label={t('settings.networkInterface')} hint={problemOf('networkInterface') ?? t('settings.networkInterface.hint')}>
        {(props) => (
          <input {...props} placeholder={t('settings.automatic')} value={draft.networkInterface} onChange={(e) => change({ networkInterface: e.target.value })} />
        )}
      </Field>
      <Field label={t('settings.apiShape')} hint={t('settings.apiShape.hint')}>
        {(props) => (
          <select {...props} value={draft.apiShape} onChange={(e) => change({ apiShape: e.target.value as Draft['apiShape'] })}>
            <option value="extended">{t('settings.apiShape.extended')}</option>
            <option value="base">{t('settings.apiShape.base')}</option>
          </select>
        )}
      </Field>
      <Checkbox label={t('settings.mdns')} hint={t('settings.mdns.hint')} checked={draft.mdns} onChange={(mdns) => change({ mdns })} />

      <h2>{t('settings.data')}</h2>
      <Field label={t('settings.dataDir')} hint={problemOf('dataDir') ?? t('settings.dataDir.hint')}>
        {(props) => <input {...props} value={draft.dataDir} aria-invalid={problems.dataDir !== undefined} onChange={(e) => change({ dataDir: e.target.value })} />}
      </Field>
      <p className="actions">
        <button type="button" onClick={() => void pickDataDir()} disabled={busy}>
          {t('settings.dataDir.choose')}
        </button>
        <button type="button" onClick={() => void act(() => hangar.openFolder('data'))}>
          {t('settings.openData')}
        </button>
        <button type="button" onClick={() => void act(() => hangar.openFolder('logs'))}>
          {t('settings.openLogs')}
        </button>
      </p>

      <h2>{t('settings.app')}</h2>
      <Checkbox label={t('settings.startAtLogin')} checked={draft.startAtLogin} onChange={(startAtLogin) => change({ startAtLogin })} />
      <Checkbox label={t('settings.minimizeToTray')} hint={t('settings.minimizeToTray.hint')} checked={draft.minimizeToTray} onChange={(minimizeToTray) => change({ minimizeToTray })} />

      {failure && (
        <p role="alert" className="notice error">
          {failure}
        </p>
      )}
      {saved && !restartNeeded && (
        <p className="notice success" role="status">
          {t('common.saved')}
        </p>
      )}
      <button type="submit" className="primary" disabled={busy || Object.keys(problems).length > 0}>
        {t('common.save')}
      </button>
    </form>
  );
}

function ServerStatus({ server }: { server: ServerConnection | null }) {
  const { t } = useI18n();
  if (!server) return null;
  if (server.state === 'running') return <p className="hint">{t('settings.status.running', { url: server.lanUrl })}</p>;
  return (
    <p className={server.error ? 'notice error' : 'notice info'} role="status">
      {server.error ? t('settings.status.failed', { reason: server.error }) : t('settings.status.paused')}
    </p>
  );
}
