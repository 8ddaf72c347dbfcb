/**
 * An API error as the user should read it: what happened (the server's own words, with the fields a
 * 422 names) and what to do about it, by kind of failure.
 */
import type { ApiError } from '../api/errors.ts';
import { useI18n, type MessageKey } from '../i18n/i18n.tsx';

/**
 * What the console says about an error: a headline, the server's own words after it (unless
 * `ownWords`, when the headline says it all and in the user's language), and what to do.
 */
export interface Guidance {
  headline: MessageKey;
  hint: MessageKey;
  ownWords?: boolean;
}

const say = (headline: MessageKey, hint: MessageKey): Guidance => ({ headline, hint });

/** The guidance for an error's status. */
function guidance(error: ApiError): Guidance {
  if (error.isNetwork) return say('errors.network', 'errors.network.hint');
  switch (error.status) {
    case 401:
      return say('errors.unauthorized', 'errors.unauthorized.hint');
    case 403:
      return say('errors.forbidden', 'errors.forbidden.hint');
    case 404:
      return say('errors.notFound', 'errors.notFound.hint');
    case 409:
      return say('errors.conflict', 'errors.conflict.hint');
    case 413:
      return say('errors.tooLarge', 'errors.tooLarge.hint');
    case 422:
      return error.entry ? say('errors.invalid', 'errors.invalid.hint') : say('errors.refused', 'errors.refused.hint');
    case 429:
      return say('errors.rateLimited', 'errors.rateLimited.hint');
    default:
      return error.status >= 500 ? say('errors.server', 'errors.server.hint') : say('errors.unexpected', 'errors.unexpected.hint');
  }
}

interface ErrorNoticeProps {
  error: ApiError | null;
  onRetry?(): void;
  /** what a status means where this error arose, when that differs (a 401 when signing in) */
  meaning?: Partial<Record<number, Guidance>>;
}

export function ErrorNotice({ error, onRetry, meaning }: ErrorNoticeProps) {
  const { t } = useI18n();
  if (!error) return null;
  const { headline, hint, ownWords } = meaning?.[error.status] ?? guidance(error);
  const fields = error.fieldMessages;
  const detail = ownWords || fields.length > 0 || error.isNetwork ? null : error.message;
  return (
    <div role="alert" className="notice error">
      <p>
        <strong>{t(headline)}</strong> {detail}
      </p>
      {fields.length > 0 && (
        <ul>
          {fields.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
      <p className="hint">{t(hint, { seconds: error.retryAfter ?? 60 })}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
