import { describe, expect, it } from 'vitest';
import { compareVersions, versionKey } from '../../src-server/domain/versions.ts';

describe('version comparison (R12)', () => {
  it.each([
    ['10', '9'],
    ['1.10', '1.9'],
    ['1.10.0', '1.9.2'],
    ['2.0', '1.99.99'],
    ['1.2.1', '1.2'],
    ['v2.1', '2.0.9'],
    ['3.08 (2011-12-12)', '3.07'],
    ['100', '99'],
    ['12345678901234567890', '12345678901234567889'],
    ['1.0.1', ''],
  ])('%s > %s', (newer, older) => {
    expect(compareVersions(newer, older)).toBeGreaterThan(0);
    expect(compareVersions(older, newer)).toBeLessThan(0);
    expect(versionKey(newer) > versionKey(older)).toBe(true);
  });

  it.each([
    ['1.2', '1.2.0'],
    ['v1.2', '1.2'],
    ['01.002', '1.2'],
    ['1.2.0.0', '1.2'],
    ['build 7', '7'],
  ])('%s = %s', (a, b) => {
    expect(compareVersions(a, b)).toBe(0);
    expect(versionKey(a)).toBe(versionKey(b));
  });

  it('sorts a list the way people read versions', () => {
    const sorted = ['1.10', '1.2', '1.9', '10.0', '2.0', '1.2.10', '1.2.9'].sort(compareVersions);
    expect(sorted).toEqual(['1.2', '1.2.9', '1.2.10', '1.9', '1.10', '2.0', '10.0']);
  });
});
