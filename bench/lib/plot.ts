/**
 * Line charts as PNG files for the benchmarks' curves (memory over time, time against database size),
 * drawn pixel by pixel with pngjs: no plotting library is installed on the build machines. Axes with
 * "nice" ticks (x may be logarithmic), grid lines, one line per series with its points marked, a legend,
 * and text in a built-in 3x5 pixel font (upper case, digits and a few signs) drawn at twice the size.
 */
import { writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';

export interface Series {
  name: string;
  points: Array<[x: number, y: number]>;
}

export interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  /** a logarithmic x axis (ticks at powers of ten) */
  logX?: boolean;
  series: Series[];
}

type Rgb = [number, number, number];

const WIDTH = 900;
const HEIGHT = 500;
const MARGIN = { left: 80, right: 30, top: 50, bottom: 60 };
const SCALE = 2;
const PALETTE: Rgb[] = [
  [31, 119, 180],
  [255, 127, 14],
  [44, 160, 44],
  [214, 39, 40],
  [148, 103, 189],
];
const BLACK: Rgb = [0, 0, 0];
const GRID: Rgb = [225, 225, 225];

/** 3x5 glyphs: five rows, each an octal digit whose bits 4, 2, 1 are the left, middle and right pixel. */
const FONT: Record<string, string> = {
  '0': '75557', '1': '26227', '2': '71747', '3': '71317', '4': '55711', '5': '74717', '6': '74757', '7': '71122',
  '8': '75757', '9': '75717', A: '25755', B: '65656', C: '34443', D: '65556', E: '74647', F: '74644', G: '34553',
  H: '55755', I: '72227', J: '11152', K: '55655', L: '44447', M: '57755', N: '65555', O: '25552', P: '65644',
  Q: '25563', R: '65655', S: '34216', T: '72222', U: '55557', V: '55552', W: '55775', X: '55255', Y: '55222',
  Z: '71247', '.': '00002', ',': '00024', '-': '00700', ':': '02020', '/': '11244', '(': '12221', ')': '42224',
  '%': '51245', '+': '02720', '=': '07070', _: '00007', ' ': '00000',
};

class Canvas {
  readonly png: PNG;

  constructor(width: number, height: number) {
    this.png = new PNG({ width, height });
    this.png.data.fill(255);
  }

  pixel(x: number, y: number, [r, g, b]: Rgb): void {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= this.png.width || y >= this.png.height) return;
    const at = (y * this.png.width + x) * 4;
    this.png.data[at] = r;
    this.png.data[at + 1] = g;
    this.png.data[at + 2] = b;
    this.png.data[at + 3] = 255;
  }

  rect(x: number, y: number, w: number, h: number, color: Rgb): void {
    for (let dy = 0; dy < h; dy += 1) for (let dx = 0; dx < w; dx += 1) this.pixel(x + dx, y + dy, color);
  }

  /** A line `thickness` pixels wide (a square brush stepped along it). */
  line(x0: number, y0: number, x1: number, y1: number, color: Rgb, thickness = 1): void {
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))));
    const offset = Math.floor(thickness / 2);
    for (let i = 0; i <= steps; i += 1) {
      const x = x0 + ((x1 - x0) * i) / steps;
      const y = y0 + ((y1 - y0) * i) / steps;
      this.rect(Math.round(x) - offset, Math.round(y) - offset, thickness, thickness, color);
    }
  }

  /** Text whose top left corner is at x, y; `align` places x at its start, middle or end. */
  text(value: string, x: number, y: number, align: 'start' | 'middle' | 'end' = 'start', color = BLACK): void {
    const glyphs = [...value.toUpperCase()].map((c) => FONT[c] ?? FONT[' ']!);
    const width = textWidth(value);
    let at = align === 'start' ? x : align === 'middle' ? x - width / 2 : x - width;
    for (const rows of glyphs) {
      for (let row = 0; row < 5; row += 1) {
        const bits = Number(rows[row]);
        for (let col = 0; col < 3; col += 1) if (bits & (4 >> col)) this.rect(at + col * SCALE, y + row * SCALE, SCALE, SCALE, color);
      }
      at += 4 * SCALE;
    }
  }
}

const textWidth = (value: string) => value.length * 4 * SCALE - SCALE;
const TEXT_HEIGHT = 5 * SCALE;

/** A tick step of 1, 2 or 5 times a power of ten that cuts `range` into about `count` parts. */
function niceStep(range: number, count = 6): number {
  const raw = range / count || 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
}

/** The multiples of `step` within [min, max]. */
function ticksWithin(min: number, max: number, step: number): number[] {
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** 1500 -> "1.5K", 1000000 -> "1M", 0.25 -> "0.25" */
export function compact(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e3) return `${Number((value / 1e3).toPrecision(3))}K`;
  return String(Number(value.toPrecision(3)));
}

export function renderChart(chart: Chart): Buffer {
  const canvas = new Canvas(WIDTH, HEIGHT);
  const all = chart.series.flatMap((s) => s.points);
  if (all.length === 0) throw new Error(`chart "${chart.title}" has no points`);
  const fx = chart.logX ? Math.log10 : (x: number) => x;
  const xs = all.map(([x]) => fx(x));
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  // the y axis starts at 0 and ends at the first tick above the highest point
  const yTop = Math.max(...all.map(([, y]) => y)) * 1.05 || 1;
  const yStep = niceStep(yTop);
  const yMax = Math.ceil(yTop / yStep) * yStep;
  const yTicks = ticksWithin(0, yMax, yStep);
  const plot = { x: MARGIN.left, y: MARGIN.top, w: WIDTH - MARGIN.left - MARGIN.right, h: HEIGHT - MARGIN.top - MARGIN.bottom };
  const px = (x: number) => plot.x + ((fx(x) - xMin) / (xMax - xMin || 1)) * plot.w;
  const py = (y: number) => plot.y + plot.h - (y / yMax) * plot.h;

  const xTicks = chart.logX
    ? Array.from({ length: Math.floor(xMax) - Math.ceil(xMin) + 1 }, (_, i) => 10 ** (Math.ceil(xMin) + i))
    : ticksWithin(xMin, xMax, niceStep(xMax - xMin));
  for (const t of yTicks) {
    canvas.line(plot.x, py(t), plot.x + plot.w, py(t), GRID);
    canvas.text(compact(t), plot.x - 8, py(t) - TEXT_HEIGHT / 2, 'end');
  }
  for (const t of xTicks) {
    canvas.line(px(t), plot.y, px(t), plot.y + plot.h, GRID);
    canvas.text(compact(t), px(t), plot.y + plot.h + 8, 'middle');
  }
  canvas.line(plot.x, plot.y, plot.x, plot.y + plot.h, BLACK, 2);
  canvas.line(plot.x, plot.y + plot.h, plot.x + plot.w, plot.y + plot.h, BLACK, 2);
  canvas.text(chart.title, WIDTH / 2, 14, 'middle');
  canvas.text(chart.yLabel, plot.x - 8, plot.y - TEXT_HEIGHT - 10, 'start');
  canvas.text(chart.xLabel, plot.x + plot.w / 2, HEIGHT - TEXT_HEIGHT - 12, 'middle');

  chart.series.forEach((series, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const points = series.points.map(([x, y]) => [px(x), py(y)] as const);
    points.slice(1).forEach(([x, y], j) => canvas.line(points[j]![0], points[j]![1], x, y, color, 2));
    if (points.length <= 50) for (const [x, y] of points) canvas.rect(x - 3, y - 3, 7, 7, color);
    // legend: top right, one line per series
    const ly = plot.y + 8 + i * (TEXT_HEIGHT + 8);
    const lx = plot.x + plot.w - 12 - Math.max(...chart.series.map((s) => textWidth(s.name))) - 24;
    canvas.rect(lx, ly, 16, TEXT_HEIGHT, color);
    canvas.text(series.name, lx + 24, ly);
  });
  return PNG.sync.write(canvas.png);
}

export function writeChart(path: string, chart: Chart): void {
  writeFileSync(path, renderChart(chart));
}
