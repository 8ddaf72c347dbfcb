/**
 * Signing in to the console in a browser (the desktop app is always signed in): a username or email
 * and a password, POST /api/session. The server refuses locked users (403) and slows down guessing
 * (429 with Retry-After); both come back as errors that say so.
 */
import { useState, type FormEvent } from 'react';
import { signIn } from '../api/connection.ts';
import type { SessionBody } from '../api/types.ts';
import { ErrorNotice, type Guidance } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { useAction } from '../hooks/useAction.ts';
import { useI18n } from '../i18n/i18n.tsx';

/** At sign-in, 401 means wrong credentials and 403 a locked account, not a session that ended. */
const SIGN_IN_ERRORS: Record<number, Guidance> = {
  401: { headline: 'signIn.wrong', hint: 'signIn.wrong.hint', ownWords: true },
  403: { headline: 'signIn.locked', hint: 'signIn.locked.hint', ownWords: true },
};

export function SignInPage({ ended, onSignedIn }: { ended: boolean; onSignedIn(session: SessionBody): void }) {
  const { t } = useI18n();
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await action.run(async () => onSignedIn(await signIn(login.trim(), password)));
  };

  return (
    <main className="centered">
      <form className="card narrow sign-in" onSubmit={submit} aria-labelledby="sign-in-title">
        <p className="brand">Hangar</p>
        <h1 id="sign-in-title">{t('signIn.title')}</h1>
        {ended && (
          <p className="notice info" role="status">
            {t('signIn.ended')}
          </p>
        )}
        <Field label={t('signIn.login')}>
          {(props) => <input {...props} autoComplete="username" required autoFocus value={login} onChange={(event) => setLogin(event.target.value)} />}
        </Field>
        <Field label={t('signIn.password')}>
          {(props) => (
            <input {...props} type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
          )}
        </Field>
        <ErrorNotice error={action.error} meaning={SIGN_IN_ERRORS} />
        <button type="submit" className="primary wide" disabled={action.busy} aria-busy={action.busy}>
          {t('signIn.submit')}
        </button>
        <p className="hint">{t('signIn.help')}</p>
      </form>
    </main>
  );
}
