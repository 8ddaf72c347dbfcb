/**
 * The frame around every page: the main navigation, the signed-in user (preferences, sign out), the
 * live-updates indicator and the upload button; the page itself in <main>, which takes the focus
 * after each navigation so keyboard and screen-reader users start at the new page. Uploads (drop
 * anywhere, the panel, the target dialog) live here so they survive moving between pages.
 */
import { useEffect, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { APPEARANCES, LOCALES, type Appearance, type Locale } from './api/types.ts';
import { FormDialog } from './components/Dialog.tsx';
import { EnumSelect } from './components/EnumSelect.tsx';
import { ErrorNotice } from './components/ErrorNotice.tsx';
import { Field } from './components/Field.tsx';
import { useAction } from './hooks/useAction.ts';
import { useI18n } from './i18n/i18n.tsx';
import { isAdmin, useLiveState, useSession } from './session.tsx';
import { WindowDropTarget } from './uploads/DropTarget.tsx';
import { FilePicker } from './uploads/FilePicker.tsx';
import { UploadDialog } from './uploads/UploadDialog.tsx';
import { UploadPanel } from './uploads/UploadPanel.tsx';
import { UploadsProvider, useUploads } from './uploads/uploads.tsx';

export function Layout() {
  const { t } = useI18n();
  const { user, desktop } = useSession();
  const main = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  const firstPage = useRef(true);
  useEffect(() => {
    if (firstPage.current) firstPage.current = false;
    else main.current?.focus();
  }, [pathname]);

  return (
    <UploadsProvider>
      <div className="shell">
        <button type="button" className="skip-link" onClick={() => main.current?.focus()}>
          {t('nav.skip')}
        </button>
        <aside className="sidebar">
          <p className="brand">Hangar</p>
          <nav aria-label={t('nav.main')} className="main-nav">
            <NavLink to="/" end>
              {t('nav.dashboard')}
            </NavLink>
            <NavLink to="/apps">{t('nav.apps')}</NavLink>
            <NavLink to="/devices">{t('nav.devices')}</NavLink>
            {isAdmin(user) && <NavLink to="/users">{t('nav.users')}</NavLink>}
            <NavLink to="/tokens">{t('nav.tokens')}</NavLink>
            {desktop && <NavLink to="/settings">{t('nav.settings')}</NavLink>}
          </nav>
          <Account />
        </aside>
        <div className="main-column">
          <TopBar />
          <main id="main" ref={main} tabIndex={-1}>
            <Outlet />
          </main>
        </div>
      </div>
      <WindowDropTarget />
      <UploadDialog />
      <UploadPanel />
    </UploadsProvider>
  );
}

function TopBar() {
  const { t } = useI18n();
  const { choose } = useUploads();
  const live = useLiveState();
  return (
    <header className="topbar">
      <p className={`live-indicator ${live}`} role="status">
        <span className="dot" aria-hidden="true" />
        {t(live === 'open' ? 'live.open' : live === 'connecting' ? 'live.connecting' : 'live.closed')}
      </p>
      <FilePicker label={t('upload.button')} onFiles={choose} primary />
    </header>
  );
}

function Account() {
  const { t } = useI18n();
  const { user, signOut } = useSession();
  const [editing, setEditing] = useState(false);
  const leaving = useAction();
  return (
    <div className="account">
      <p>
        <strong>{user.username}</strong>
        <span className="muted">{t(`role.${user.role}`)}</span>
      </p>
      <button type="button" onClick={() => setEditing(true)}>
        {t('preferences.title')}
      </button>
      {signOut && (
        <button type="button" onClick={() => leaving.run(signOut)} disabled={leaving.busy}>
          {t('signIn.signOut')}
        </button>
      )}
      <ErrorNotice error={leaving.error} />
      {editing && <PreferencesDialog onClose={() => setEditing(false)} />}
    </div>
  );
}

/** The user's language and appearance, saved to their account (they follow them to any console). */
function PreferencesDialog({ onClose }: { onClose(): void }) {
  const { t } = useI18n();
  const { api, user, setUser } = useSession();
  const [locale, setLocale] = useState<Locale>(user.locale);
  const [appearance, setAppearance] = useState<Appearance>(user.appearance);
  const save = async () => setUser(await api.users.updateMe({ locale, appearance }));
  return (
    <FormDialog title={t('preferences.title')} submitLabel={t('common.save')} onSubmit={save} onClose={onClose}>
      <Field label={t('preferences.language')}>
        {(props) => <EnumSelect {...props} values={LOCALES} value={locale} onChange={setLocale} labelOf={(l) => t(`locale.${l}`)} />}
      </Field>
      <Field label={t('preferences.appearance')}>
        {(props) => <EnumSelect {...props} values={APPEARANCES} value={appearance} onChange={setAppearance} labelOf={(a) => t(`appearance.${a}`)} />}
      </Field>
    </FormDialog>
  );
}
