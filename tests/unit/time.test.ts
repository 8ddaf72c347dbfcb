import { describe, expect, it } from 'vitest';
import { extendedTimestamp, isoTimestamp } from '../../src-server/serializers/time.ts';

const at = Date.UTC(2026, 10, 21, 6, 3, 5, 123); // 2026-11-21T06:03:05.123Z

describe('timestamps (R7)', () => {
  it.each([
    ['Asia/Shanghai', '2026-11-21T14:03:05.123+08:00', '2026-11-21 14:03:05 +0800'],
    ['UTC', '2026-11-21T06:03:05.123+00:00', '2026-11-21 06:03:05 +0000'],
    ['America/New_York', '2026-11-21T01:03:05.123-05:00', '2026-11-21 01:03:05 -0500'],
    ['Asia/Kolkata', '2026-11-21T11:33:05.123+05:30', '2026-11-21 11:33:05 +0530'],
    ['Asia/Kathmandu', '2026-11-21T11:48:05.123+05:45', '2026-11-21 11:48:05 +0545'],
    ['Pacific/Chatham', '2026-11-21T19:48:05.123+13:45', '2026-11-21 19:48:05 +1345'],
    ['Etc/GMT+12', '2026-11-20T18:03:05.123-12:00', '2026-11-20 18:03:05 -1200'],
  ])('%s', (zone, iso, extended) => {
    expect(isoTimestamp(at, zone)).toBe(iso);
    expect(extendedTimestamp(at, zone)).toBe(extended);
  });

  it('follows daylight saving time', () => {
    const summer = Date.UTC(2026, 6, 1, 12, 0, 0, 0);
    expect(isoTimestamp(summer, 'Europe/Berlin')).toBe('2026-07-01T14:00:00.000+02:00');
    expect(isoTimestamp(at, 'Europe/Berlin')).toBe('2026-11-21T07:03:05.123+01:00');
  });

  it('keeps milliseconds, including zero and before 1970', () => {
    expect(isoTimestamp(Date.UTC(2026, 0, 1, 0, 0, 0, 7), 'UTC')).toBe('2026-01-01T00:00:00.007+00:00');
    expect(isoTimestamp(-1, 'UTC')).toBe('1969-12-31T23:59:59.999+00:00');
  });
});
