/** A timestamp from the API, in the user's locale and time zone; the exact text on hover. */
import { parseTimestamp, useI18n } from '../i18n/i18n.tsx';

export function Time({ value, relative }: { value: string | null; relative?: boolean }) {
  const i18n = useI18n();
  if (value === null) return <span>—</span>;
  const date = parseTimestamp(value);
  return (
    <time dateTime={date?.toISOString()} title={relative ? i18n.date(value) : value}>
      {relative ? i18n.relative(value) : i18n.date(value)}
    </time>
  );
}
