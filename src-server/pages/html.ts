/**
 * HTML for the device pages, built with a tagged template that escapes every interpolated value:
 *
 *   html`<h1>${release.appName}</h1>`      // an app named "<script>" comes out as text
 *
 * Values are escaped for text and for quoted attribute values alike (& < > " '), so attributes must
 * always be quoted in templates. Arrays are joined (lists of items), null, undefined and false
 * render nothing (conditional parts). Markup we wrote ourselves passes through as an `Html` value:
 * the result of another html`` template, or `raw()` for a trusted string.
 */

/** Markup that is already safe to insert. */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Trusted markup, inserted as it is: never call this with anything a user or a build supplied. */
export function raw(text: string): Html {
  return new Html(text);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}
