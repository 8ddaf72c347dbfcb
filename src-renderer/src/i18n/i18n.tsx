/**
 * Translation and formatting for the console: English and Simplified Chinese (the locales a user's
 * `locale` setting may name). The signed-in user's setting chooses; before sign-in, the browser's
 * language does. Catalogs are flat objects keyed alike (zh-CN.ts is typed against en.ts, so a
 * missing or extra key fails the typecheck); `{name}` in a message is replaced by the value given.
 *
 * Dates arrive from the API as `2026-11-21 14:03:05 +0800` (extended shape) and are shown in the
 * user's time zone.
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { Locale } from '../api/types.ts';
import { en, type MessageKey } from './en.ts';
import { zhCN } from './zh-CN.ts';

export type { MessageKey };
export type Vars = Record<string, string | number>;

const catalogs: Record<Locale, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };

/** The locale a browser asks for: Chinese variants read Simplified Chinese, anything else English. */
export function browserLocale(languages: readonly string[] = navigator.languages): Locale {
  return languages.some((language) => language.toLowerCase().startsWith('zh')) ? 'zh-CN' : 'en';
}

export function translate(locale: Locale, key: MessageKey, vars: Vars = {}): string {
  return catalogs[locale][key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/** `2026-11-21 14:03:05 +0800` (or ISO 8601) as a Date; null when it is neither. */
export function parseTimestamp(text: string): Date | null {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-]\d{2})(\d{2})$/.exec(text);
  const date = new Date(m ? `${m[1]}T${m[2]}${m[3]}:${m[4]}` : text);
  return Number.isNaN(date.getTime()) ? null : date;
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export interface I18n {
  locale: Locale;
  t(key: MessageKey, vars?: Vars): string;
  /** picks `<key>.one` or `<key>.other` by `count` and fills in `{count}` */
  plural(key: string, count: number, vars?: Vars): string;
  date(text: string | null): string;
  /** "3 minutes ago" */
  relative(text: string): string;
  bytes(count: number): string;
  number(value: number): string;
}

/** Dates in the user's zone; in the browser's when the zone is one this browser does not know. */
function dateFormatFor(locale: Locale, timeZone: string | undefined): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  } catch {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  }
}

function makeI18n(locale: Locale, timeZone: string | undefined): I18n {
  const dateFormat = dateFormatFor(locale, timeZone);
  const relativeFormat = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const numberFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  const plurals = new Intl.PluralRules(locale);
  const t = (key: MessageKey, vars?: Vars) => translate(locale, key, vars);
  return {
    locale,
    t,
    plural: (key, count, vars = {}) => {
      const form = plurals.select(count) === 'one' ? 'one' : 'other';
      return t(`${key}.${form}` as MessageKey, { count: numberFormat.format(count), ...vars });
    },
    date: (text) => {
      const date = text === null ? null : parseTimestamp(text);
      return date ? dateFormat.format(date) : (text ?? '—');
    },
    relative: (text) => {
      const date = parseTimestamp(text);
      if (!date) return text;
      const seconds = Math.round((date.getTime() - Date.now()) / 1000);
      const steps: [Intl.RelativeTimeFormatUnit, number][] = [['second', 60], ['minute', 60], ['hour', 24], ['day', 30]];
      let value = seconds;
      for (const [unit, size] of steps) {
        if (Math.abs(value) < size) return relativeFormat.format(unit === 'second' ? Math.min(0, value) : value, unit);
        value = Math.round(value / size);
      }
      return dateFormat.format(date);
    },
    bytes: (count) => {
      let value = count;
      let unit = 0;
      while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
        value /= 1024;
        unit += 1;
      }
      return `${numberFormat.format(value)} ${BYTE_UNITS[unit]}`;
    },
    number: (value) => numberFormat.format(value),
  };
}

const I18nContext = createContext<I18n>(makeI18n('en', undefined));

export function I18nProvider({ locale, timeZone, children }: { locale: Locale; timeZone?: string; children: ReactNode }) {
  const value = useMemo(() => makeI18n(locale, timeZone), [locale, timeZone]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  return useContext(I18nContext);
}
