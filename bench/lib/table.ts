/** The results table: one row per benchmark, Hangar against the baseline measured in the same run. */

export interface Row {
  name: string;
  unit: string;
  hangar: number;
  /** null: no baseline for this row (e.g. memory growth) */
  baseline: number | null;
  /** hangar / baseline, when there is a baseline */
  ratio: number | null;
  /** e.g. ">= 70% of baseline", "< 64 MiB", "report" */
  target: string;
  /** null: reported only */
  pass: boolean | null;
}

const r2 = (value: number) => Math.round(value * 100) / 100;
const r4 = (value: number) => Math.round(value * 10000) / 10000;

export function ratioRow(name: string, unit: string, hangar: number, baseline: number, minRatio: number): Row {
  const ratio = hangar / baseline;
  return { name, unit, hangar: r2(hangar), baseline: r2(baseline), ratio: r4(ratio), target: `>= ${Math.round(minRatio * 100)}% of baseline`, pass: ratio >= minRatio };
}

export function limitRow(name: string, unit: string, hangar: number, limit: number): Row {
  return { name, unit, hangar: r2(hangar), baseline: null, ratio: null, target: `< ${limit} ${unit}`, pass: hangar < limit };
}

export function reportRow(name: string, unit: string, hangar: number, baseline: number | null = null): Row {
  return { name, unit, hangar: r2(hangar), baseline: baseline === null ? null : r2(baseline), ratio: baseline === null ? null : r4(hangar / baseline), target: 'report', pass: null };
}

function format(value: number | null, unit = ''): string {
  if (value === null || Number.isNaN(value)) return '-';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

export function renderTable(rows: Row[]): string {
  const header = ['benchmark', 'hangar', 'baseline', 'ratio', 'target', 'result'];
  const lines = rows.map((row) => [
    row.name,
    format(row.hangar, row.unit),
    format(row.baseline, row.unit),
    row.ratio === null ? '-' : `${(row.ratio * 100).toFixed(1)}%`,
    row.target,
    row.pass === null ? 'info' : row.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const render = (cells: string[]) => cells.map((c, i) => (i === 0 || i >= 4 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(render)].join('\n');
}
