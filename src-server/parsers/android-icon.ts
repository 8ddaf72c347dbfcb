/**
 * An Android app's icon as a PNG: the application's icon resource, resolved through the resource
 * table to its files across densities.
 *
 * 1. A raster (PNG, WebP, JPEG) at any density: the largest one, in pixels.
 * 2. Otherwise an XML drawable, drawn with sharp: an <adaptive-icon> (background under foreground,
 *    each a color, a raster, or a drawable; cropped to the 72dp of 108dp a launcher shows), a
 *    <vector> (turned into SVG), <bitmap>, <inset>, <layer-list>, <shape>, <color>.
 * Whatever cannot be drawn gives null: a missing icon never fails an upload.
 */
import sharp from 'sharp';
import {
  androidAttr,
  childElements,
  defaultEntry,
  DENSITY_ANY,
  DENSITY_NONE,
  resolveDefault,
  type ResourceTable,
  type ResValue,
  type XmlElement,
} from './android-model.ts';
import { imageSize, toPng } from './images.ts';

/** Where an icon's files come from: an .apk (res/... at the root) or an .aab module (base/res/...). */
export interface AndroidResources {
  table: ResourceTable | null;
  /** a package file as the resource table names it (res/...); null when absent or unreadable */
  readFile(path: string): Promise<Buffer | null>;
  /** parses a compiled XML resource file (binary XML or protobuf); throws when it cannot */
  parseXml(data: Buffer): XmlElement;
}

export interface IconOptions {
  /** draw XML drawables (the adaptive icon, its vector layers) even where rasters exist: for tests of the drawing code */
  preferDrawn?: boolean;
}

const RASTER = /\.(png|webp|jpe?g|gif)$/i;
const NINE_PATCH = /\.9\.png$/i;
/** 108dp at xxxhdpi: the size adaptive layers are drawn at */
const LAYER_SIZE = 432;
/** the 72dp of 108dp a launcher shows */
const VISIBLE_SIZE = 288;
/** the most raster candidates measured for one icon */
const MAX_CANDIDATES = 16;
const MAX_DEPTH = 8;

interface FileCandidate {
  path: string;
  density: number;
  sdk: number;
  other: boolean;
}

/** The files a drawable resource stands for (following aliases), default-locale values first. */
function collectFiles(value: ResValue | null, table: ResourceTable | null, depth = 0, seen = new Set<number>()): FileCandidate[] {
  if (!value || depth > MAX_DEPTH) return [];
  if (value.kind === 'file') return [{ path: value.path, density: 0, sdk: 0, other: false }];
  if (value.kind === 'string' && value.value.startsWith('res/')) return [{ path: value.value, density: 0, sdk: 0, other: false }];
  if (value.kind !== 'reference' || !table) return [];
  const id = value.id || (value.name ? table.idOf(value.name) : 0);
  if (!id || seen.has(id)) return [];
  seen.add(id);
  const entries = table.lookup(id);
  const neutral = entries.filter((e) => e.config.locale === '');
  const result: FileCandidate[] = [];
  for (const entry of neutral.length > 0 ? neutral : entries) {
    if (entry.value.kind === 'file' || (entry.value.kind === 'string' && entry.value.value.startsWith('res/'))) {
      const path = entry.value.kind === 'file' ? entry.value.path : entry.value.value;
      result.push({ path, density: entry.config.density, sdk: entry.config.sdk, other: entry.config.other });
    } else if (entry.value.kind === 'reference') {
      result.push(...collectFiles(entry.value, table, depth + 1, seen));
    }
  }
  return result;
}

/** Orders by density, highest first (anydpi and nodpi last among rasters: their size is what it is). */
function densityRank(density: number): number {
  if (density === DENSITY_ANY || density === DENSITY_NONE) return 1;
  return density === 0 ? 160 : density;
}

function preferred<T extends { other: boolean }>(list: T[]): T[] {
  const plain = list.filter((c) => !c.other);
  return plain.length > 0 ? plain : list;
}

/** The largest raster among the candidates, as PNG. */
async function largestRaster(candidates: FileCandidate[], res: AndroidResources): Promise<Buffer | null> {
  const rasters = preferred(candidates.filter((c) => RASTER.test(c.path)));
  const ordered = [...rasters]
    .sort((a, b) => Number(NINE_PATCH.test(a.path)) - Number(NINE_PATCH.test(b.path)) || densityRank(b.density) - densityRank(a.density))
    .slice(0, MAX_CANDIDATES);
  let best: { data: Buffer; area: number } | null = null;
  for (const candidate of ordered) {
    const data = await res.readFile(candidate.path);
    if (!data) continue;
    const size = await imageSize(data);
    if (!size) continue;
    const area = size.width * size.height;
    if (!best || area > best.area) best = { data, area };
  }
  return best ? toPng(best.data) : null;
}

/** XML drawables first by anydpi, then by the highest -vNN (what a current device picks). */
function orderedXml(candidates: FileCandidate[]): FileCandidate[] {
  return preferred(candidates.filter((c) => /\.xml$/i.test(c.path))).sort(
    (a, b) => Number(b.density === DENSITY_ANY) - Number(a.density === DENSITY_ANY) || b.sdk - a.sdk || densityRank(b.density) - densityRank(a.density),
  );
}

/** The application icon as a PNG, or null when there is none that can be read or drawn. */
export async function findAndroidIcon(icon: ResValue | null, res: AndroidResources, options: IconOptions = {}): Promise<Buffer | null> {
  const candidates = collectFiles(icon, res.table);
  if (candidates.length === 0) return null;
  const drawer = new Drawer(res, options.preferDrawn === true);
  const drawn = async (): Promise<Buffer | null> => {
    for (const candidate of orderedXml(candidates)) {
      const png = await drawer.drawFile(candidate.path, LAYER_SIZE, LAYER_SIZE, 0, true);
      if (png) return toPng(png);
    }
    return null;
  };
  if (options.preferDrawn) return (await drawn()) ?? (await largestRaster(candidates, res));
  return (await largestRaster(candidates, res)) ?? (await drawn());
}

// ---- drawing ------------------------------------------------------------------------------------

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

function svgColor(argb: number): { color: string; opacity: number } {
  return { color: `#${hex2((argb >>> 16) & 0xff)}${hex2((argb >>> 8) & 0xff)}${hex2(argb & 0xff)}`, opacity: ((argb >>> 24) & 0xff) / 255 };
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function num(value: ResValue | null, fallback: number): number {
  if (!value) return fallback;
  if (value.kind === 'float' || value.kind === 'int' || value.kind === 'dimension' || value.kind === 'fraction') return value.value;
  if (value.kind === 'string') {
    const n = Number.parseFloat(value.value);
    return Number.isFinite(n) ? n : fallback;
  }
  return fallback;
}

/** A transparent canvas of the given size as PNG. */
async function blank(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
}

async function solid(argb: number, width: number, height: number): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 4, background: { r: (argb >>> 16) & 0xff, g: (argb >>> 8) & 0xff, b: argb & 0xff, alpha: ((argb >>> 24) & 0xff) / 255 } },
  })
    .png()
    .toBuffer();
}

/** Draws drawables into RGBA PNGs of an exact size. */
class Drawer {
  private readonly res: AndroidResources;
  private readonly preferDrawn: boolean;
  private gradientCount = 0;

  constructor(res: AndroidResources, preferDrawn: boolean) {
    this.res = res;
    this.preferDrawn = preferDrawn;
  }

  private get table(): ResourceTable | null {
    return this.res.table;
  }

  /** Draws a value (a color, a reference to a drawable or color, a file) at width x height. */
  async drawValue(value: ResValue | null, width: number, height: number, depth: number): Promise<Buffer | null> {
    if (!value || depth > MAX_DEPTH) return null;
    if (value.kind === 'color') return solid(value.argb, width, height);
    if (value.kind === 'file') return this.drawFile(value.path, width, height, depth + 1, false);
    if (value.kind !== 'reference' || !this.table) return null;
    const entries = this.table.lookup(value.id || (value.name ? this.table.idOf(value.name) : 0));
    // a color resource: its default value
    const fallback = defaultEntry(entries);
    if (fallback?.value.kind === 'color') return solid(fallback.value.argb, width, height);
    const files = collectFiles(value, this.table);
    // for a layer, the best raster is the densest one (no need to measure them all)
    const raster = preferred(files.filter((c) => RASTER.test(c.path))).sort((a, b) => densityRank(b.density) - densityRank(a.density))[0];
    const rasters = raster ? [raster] : [];
    const ordered = this.preferDrawn ? [...orderedXml(files), ...rasters] : [...rasters, ...orderedXml(files)];
    for (const file of ordered) {
      const png = await this.drawFile(file.path, width, height, depth + 1, false);
      if (png) return png;
    }
    return fallback?.value.kind === 'reference' ? this.drawValue(fallback.value, width, height, depth + 1) : null;
  }

  /** Draws a file: a raster scaled to fit, or an XML drawable. */
  async drawFile(path: string, width: number, height: number, depth: number, topLevel: boolean): Promise<Buffer | null> {
    if (depth > MAX_DEPTH) return null;
    const data = await this.res.readFile(path);
    if (!data) return null;
    if (!/\.xml$/i.test(path)) {
      try {
        return await sharp(data, { limitInputPixels: 64 * 1024 * 1024 }).resize(width, height, { fit: 'fill' }).ensureAlpha().png().toBuffer();
      } catch {
        return null;
      }
    }
    let element: XmlElement;
    try {
      element = this.res.parseXml(data);
    } catch {
      return null;
    }
    return this.drawElement(element, width, height, depth + 1, topLevel);
  }

  /** The drawable an element names: its android:drawable (or src), else its first child element. */
  private async drawInner(element: XmlElement, width: number, height: number, depth: number, attribute = 'drawable'): Promise<Buffer | null> {
    const value = androidAttr(element, attribute);
    if (value) return this.drawValue(value, width, height, depth + 1);
    const child = element.children[0];
    return child ? this.drawElement(child, width, height, depth + 1, false) : null;
  }

  async drawElement(element: XmlElement, width: number, height: number, depth: number, topLevel: boolean): Promise<Buffer | null> {
    if (depth > MAX_DEPTH) return null;
    try {
      switch (element.name) {
        case 'adaptive-icon':
          return await this.drawAdaptive(element, width, height, depth, topLevel);
        case 'bitmap':
        case 'nine-patch':
          return await this.drawInner(element, width, height, depth, 'src');
        case 'inset':
          return await this.drawInset(element, width, height, depth);
        case 'layer-list':
          return await this.drawLayers(
            childElements(element, 'item').map((item) => (w: number, h: number) => this.drawInner(item, w, h, depth + 1)),
            width,
            height,
          );
        case 'selector':
        case 'level-list':
        case 'animated-selector': {
          const item = childElements(element, 'item')[0];
          return item ? await this.drawInner(item, width, height, depth + 1) : null;
        }
        case 'vector':
          return await this.drawVector(element, width, height);
        case 'color': {
          const color = resolveDefault(androidAttr(element, 'color'), this.table);
          return color?.kind === 'color' ? await solid(color.argb, width, height) : null;
        }
        case 'shape':
          return await this.drawShape(element, width, height);
        default:
          return null;
      }
    } catch {
      return null;
    }
  }

  private async drawLayers(layers: ((w: number, h: number) => Promise<Buffer | null>)[], width: number, height: number): Promise<Buffer | null> {
    const drawn: Buffer[] = [];
    for (const layer of layers) {
      const png = await layer(width, height);
      if (png) drawn.push(png);
    }
    if (drawn.length === 0) return null;
    return sharp(await blank(width, height))
      .composite(drawn.map((input) => ({ input, left: 0, top: 0 })))
      .png()
      .toBuffer();
  }

  /** Background under foreground, both 108dp; the visible middle 72dp is the icon. */
  private async drawAdaptive(element: XmlElement, width: number, height: number, depth: number, topLevel: boolean): Promise<Buffer | null> {
    const layer = (name: string) => (w: number, h: number) => {
      const el = childElements(element, name)[0];
      return el ? this.drawInner(el, w, h, depth + 1) : Promise.resolve(null);
    };
    const full = await this.drawLayers([layer('background'), layer('foreground')], LAYER_SIZE, LAYER_SIZE);
    if (!full) return null;
    const margin = (LAYER_SIZE - VISIBLE_SIZE) / 2;
    const visible = sharp(full).extract({ left: margin, top: margin, width: VISIBLE_SIZE, height: VISIBLE_SIZE });
    if (topLevel) return visible.png().toBuffer();
    return sharp(await visible.png().toBuffer()).resize(width, height, { fit: 'fill' }).png().toBuffer();
  }

  private async drawInset(element: XmlElement, width: number, height: number, depth: number): Promise<Buffer | null> {
    // fractions are of the drawn size; dimensions are dp of a 108dp adaptive layer
    const inset = (name: string, size: number): number => {
      const value = resolveDefault(androidAttr(element, name) ?? androidAttr(element, 'inset'), this.table);
      if (!value) return 0;
      if (value.kind === 'fraction') return Math.round(value.value * size);
      if (value.kind === 'dimension') return Math.round((value.value * size) / 108);
      return 0;
    };
    const left = inset('insetLeft', width);
    const right = inset('insetRight', width);
    const top = inset('insetTop', height);
    const bottom = inset('insetBottom', height);
    const innerWidth = width - left - right;
    const innerHeight = height - top - bottom;
    if (innerWidth < 1 || innerHeight < 1) return null;
    const inner = await this.drawInner(element, innerWidth, innerHeight, depth + 1);
    if (!inner) return null;
    return sharp(inner).extend({ left, right, top, bottom, background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
  }

  private async drawShape(element: XmlElement, width: number, height: number): Promise<Buffer | null> {
    const solidElement = childElements(element, 'solid')[0];
    const color = solidElement ? resolveDefault(androidAttr(solidElement, 'color'), this.table) : null;
    if (color?.kind !== 'color') return null;
    const { color: fill, opacity } = svgColor(color.argb);
    const shape = num(androidAttr(element, 'shape'), 0); // 0 rectangle, 1 oval
    const body =
      shape === 1
        ? `<ellipse cx="${width / 2}" cy="${height / 2}" rx="${width / 2}" ry="${height / 2}" fill="${fill}" fill-opacity="${opacity}"/>`
        : `<rect width="${width}" height="${height}" fill="${fill}" fill-opacity="${opacity}"/>`;
    return this.renderSvg(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`, width, height);
  }

  private async renderSvg(svg: string, width: number, height: number): Promise<Buffer> {
    return sharp(Buffer.from(svg), { limitInputPixels: 64 * 1024 * 1024 }).resize(width, height, { fit: 'fill' }).ensureAlpha().png().toBuffer();
  }

  // ---- vector drawables ------------------------------------------------------------------------

  async drawVector(element: XmlElement, width: number, height: number): Promise<Buffer | null> {
    const svg = await this.vectorToSvg(element, width, height);
    return svg ? this.renderSvg(svg, width, height) : null;
  }

  /** Turns a <vector> into SVG: groups and their transforms, clip paths, paths with solid or gradient paint. */
  async vectorToSvg(element: XmlElement, width: number, height: number): Promise<string | null> {
    const viewportWidth = num(androidAttr(element, 'viewportWidth'), 0);
    const viewportHeight = num(androidAttr(element, 'viewportHeight'), 0);
    if (!(viewportWidth > 0 && viewportHeight > 0)) return null;
    const defs: string[] = [];
    const body = await this.vectorChildren(element, defs, 0);
    const alpha = num(androidAttr(element, 'alpha'), 1);
    return (
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${viewportWidth} ${viewportHeight}" preserveAspectRatio="none">` +
      `<defs>${defs.join('')}</defs><g opacity="${alpha}">${body}</g></svg>`
    );
  }

  private async vectorChildren(element: XmlElement, defs: string[], depth: number): Promise<string> {
    if (depth > 64) return '';
    let out = '';
    let clips = 0;
    for (const child of element.children) {
      if (child.name === 'group') {
        const px = num(androidAttr(child, 'pivotX'), 0);
        const py = num(androidAttr(child, 'pivotY'), 0);
        const transform =
          `translate(${num(androidAttr(child, 'translateX'), 0) + px} ${num(androidAttr(child, 'translateY'), 0) + py}) ` +
          `rotate(${num(androidAttr(child, 'rotation'), 0)}) scale(${num(androidAttr(child, 'scaleX'), 1)} ${num(androidAttr(child, 'scaleY'), 1)}) ` +
          `translate(${-px} ${-py})`;
        out += `<g transform="${transform}">${await this.vectorChildren(child, defs, depth + 1)}</g>`;
      } else if (child.name === 'clip-path') {
        // clips the rest of this group
        const d = androidAttr(child, 'pathData');
        if (d?.kind === 'string') {
          const id = `clip${defs.length}`;
          defs.push(`<clipPath id="${id}"><path d="${escapeXml(d.value)}"/></clipPath>`);
          out += `<g clip-path="url(#${id})">`;
          clips++;
        }
      } else if (child.name === 'path') {
        out += await this.vectorPath(child, defs);
      }
    }
    return out + '</g>'.repeat(clips);
  }

  private async vectorPath(path: XmlElement, defs: string[]): Promise<string> {
    const d = resolveDefault(androidAttr(path, 'pathData'), this.table);
    if (d?.kind !== 'string' || d.value.trim() === '') return '';
    const fill = await this.paint(androidAttr(path, 'fillColor'), defs);
    const stroke = await this.paint(androidAttr(path, 'strokeColor'), defs);
    const fillAlpha = num(androidAttr(path, 'fillAlpha'), 1);
    const strokeAlpha = num(androidAttr(path, 'strokeAlpha'), 1);
    const attrs = [`d="${escapeXml(d.value)}"`];
    attrs.push(fill ? `fill="${fill.paint}" fill-opacity="${fill.opacity * fillAlpha}"` : 'fill="none"');
    attrs.push(`fill-rule="${num(androidAttr(path, 'fillType'), 0) === 1 ? 'evenodd' : 'nonzero'}"`);
    if (stroke) {
      const caps = ['butt', 'round', 'square'];
      const joins = ['miter', 'round', 'bevel'];
      attrs.push(
        `stroke="${stroke.paint}" stroke-opacity="${stroke.opacity * strokeAlpha}" stroke-width="${num(androidAttr(path, 'strokeWidth'), 0)}"`,
        `stroke-linecap="${caps[num(androidAttr(path, 'strokeLineCap'), 0)] ?? 'butt'}"`,
        `stroke-linejoin="${joins[num(androidAttr(path, 'strokeLineJoin'), 0)] ?? 'miter'}"`,
        `stroke-miterlimit="${num(androidAttr(path, 'strokeMiterLimit'), 4)}"`,
      );
    }
    return `<path ${attrs.join(' ')}/>`;
  }

  /** An SVG paint for a vector color: a solid color, or a gradient defined in `defs`. */
  private async paint(value: ResValue | null, defs: string[], depth = 0): Promise<{ paint: string; opacity: number } | null> {
    if (!value || depth > MAX_DEPTH) return null;
    if (value.kind === 'color') {
      const { color, opacity } = svgColor(value.argb);
      return opacity === 0 ? null : { paint: color, opacity };
    }
    if (value.kind === 'string' && /^#[0-9a-f]{3,8}$/i.test(value.value)) return this.paint(parseHexColor(value.value), defs, depth + 1);
    if (value.kind !== 'reference' || !this.table) return null;
    const resolved = resolveDefault(value, this.table);
    if (resolved?.kind === 'color') return this.paint(resolved, defs, depth + 1);
    // a gradient or a color state list in an XML file
    const file = orderedXml(collectFiles(value, this.table))[0];
    if (!file) return null;
    const data = await this.res.readFile(file.path);
    if (!data) return null;
    let element: XmlElement;
    try {
      element = this.res.parseXml(data);
    } catch {
      return null;
    }
    if (element.name === 'selector') {
      const items = childElements(element, 'item');
      const plain = items.find((i) => i.attributes.every((a) => a.name === 'color' || a.name === 'alpha')) ?? items[0];
      return plain ? this.paint(androidAttr(plain, 'color'), defs, depth + 1) : null;
    }
    if (element.name === 'gradient') return this.gradient(element, defs);
    return null;
  }

  private gradient(element: XmlElement, defs: string[]): { paint: string; opacity: number } | null {
    const color = (name: string): number | null => {
      const v = resolveDefault(androidAttr(element, name), this.table);
      return v?.kind === 'color' ? v.argb : null;
    };
    const stops: { offset: number; argb: number }[] = [];
    for (const item of childElements(element, 'item')) {
      const c = resolveDefault(androidAttr(item, 'color'), this.table);
      if (c?.kind === 'color') stops.push({ offset: num(androidAttr(item, 'offset'), 0), argb: c.argb });
    }
    if (stops.length === 0) {
      const start = color('startColor');
      const center = color('centerColor');
      const end = color('endColor');
      if (start !== null) stops.push({ offset: 0, argb: start });
      if (center !== null) stops.push({ offset: 0.5, argb: center });
      if (end !== null) stops.push({ offset: 1, argb: end });
    }
    if (stops.length === 0) return null;
    const type = num(androidAttr(element, 'type'), 0); // 0 linear, 1 radial, 2 sweep
    const stopTags = stops
      .map((s) => {
        const { color: c, opacity } = svgColor(s.argb);
        return `<stop offset="${s.offset}" stop-color="${c}" stop-opacity="${opacity}"/>`;
      })
      .join('');
    const id = `gradient${this.gradientCount++}`;
    const spread = ['pad', 'repeat', 'reflect'][num(androidAttr(element, 'tileMode'), 0)] ?? 'pad';
    if (type === 0) {
      defs.push(
        `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" spreadMethod="${spread}" x1="${num(androidAttr(element, 'startX'), 0)}" y1="${num(androidAttr(element, 'startY'), 0)}" x2="${num(androidAttr(element, 'endX'), 0)}" y2="${num(androidAttr(element, 'endY'), 0)}">${stopTags}</linearGradient>`,
      );
    } else if (type === 1) {
      defs.push(
        `<radialGradient id="${id}" gradientUnits="userSpaceOnUse" spreadMethod="${spread}" cx="${num(androidAttr(element, 'centerX'), 0)}" cy="${num(androidAttr(element, 'centerY'), 0)}" r="${num(androidAttr(element, 'gradientRadius'), 0)}">${stopTags}</radialGradient>`,
      );
    } else {
      // a sweep gradient has no SVG equivalent: its first color stands in
      const { color: c, opacity } = svgColor(stops[0]!.argb);
      return { paint: c, opacity };
    }
    return { paint: `url(#${id})`, opacity: 1 };
  }
}

/** #rgb, #argb, #rrggbb, #aarrggbb as a color value. */
function parseHexColor(text: string): ResValue | null {
  let hex = text.slice(1);
  if (hex.length === 3 || hex.length === 4) hex = [...hex].map((c) => c + c).join('');
  if (hex.length === 6) hex = `ff${hex}`;
  if (hex.length !== 8) return null;
  return { kind: 'color', argb: Number.parseInt(hex, 16) >>> 0 };
}
