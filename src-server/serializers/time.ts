/**
 * Timestamps in a given IANA zone (R7):
 * - base shape:     2026-11-21T14:03:05.123+08:00 (ISO 8601, milliseconds, numeric offset)
 * - extended shape: 2026-11-21 14:03:05 +0800
 */

interface WallClock {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  millisecond: string;
  /** minutes east of UTC */
  offsetMinutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function wallClock(ms: number, timeZone: string): WallClock {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value;
  const year = parts.year!.padStart(4, '0');
  const fields = { year, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
  const asUtc = Date.UTC(Number(year), Number(fields.month) - 1, Number(fields.day), Number(fields.hour), Number(fields.minute), Number(fields.second));
  const wholeSeconds = Math.floor(ms / 1000) * 1000;
  return {
    ...fields,
    millisecond: String(ms - wholeSeconds).padStart(3, '0'),
    offsetMinutes: Math.round((asUtc - wholeSeconds) / 60_000),
  };
}

function offset(minutes: number, separator: string): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${separator}${String(abs % 60).padStart(2, '0')}`;
}

export function isoTimestamp(ms: number, timeZone: string): string {
  const t = wallClock(ms, timeZone);
  return `${t.year}-${t.month}-${t.day}T${t.hour}:${t.minute}:${t.second}.${t.millisecond}${offset(t.offsetMinutes, ':')}`;
}

export function extendedTimestamp(ms: number, timeZone: string): string {
  const t = wallClock(ms, timeZone);
  return `${t.year}-${t.month}-${t.day} ${t.hour}:${t.minute}:${t.second} ${offset(t.offsetMinutes, '')}`;
}
