/**
 * Comparing version strings as version numbers (R12): "10" > "9", "1.10.0" > "1.9.2"; a leading "v"
 * or any text around the numbers is ignored ("v2.1 (beta)" is 2.1), and trailing zero components
 * do not count ("1.2" = "1.2.0").
 *
 * `versionKey` turns a version into a string whose order is that numeric order, so that the
 * database can index it and answer "newer than" with a range scan.
 */

/** The numeric components, as digit strings without leading zeros (they may exceed 2^53). */
function digitRuns(version: string): string[] {
  const runs = (version.match(/\d+/g) ?? []).map((digits) => digits.replace(/^0+(?=\d)/, ''));
  while (runs.length > 0 && runs[runs.length - 1] === '0') runs.pop();
  return runs;
}

/**
 * Sortable key: each component as one letter giving its digit count ("A" = 1 digit, "B" = 2, ...)
 * followed by the digits, components joined by "." (which sorts before the letters, so a shorter
 * version with the same start is older: "1.2" < "1.2.1").
 */
export function versionKey(version: string): string {
  return digitRuns(version)
    .map((digits) => String.fromCharCode(0x41 + Math.min(digits.length - 1, 25)) + digits)
    .join('.');
}

/** Negative when a < b, 0 when equal as versions, positive when a > b. */
export function compareVersions(a: string, b: string): number {
  const ka = versionKey(a);
  const kb = versionKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
