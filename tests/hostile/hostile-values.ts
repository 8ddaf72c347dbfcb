/**
 * fast-check arbitraries for hostile input: values shaped by a JSON schema (what the OpenAPI document
 * says a route accepts) mixed with what a careless or malicious client sends instead — the wrong
 * type, huge strings, unicode (lone surrogates, zero-width and right-to-left characters, NUL), deep
 * nesting. Shared by the fuzz tests in this folder.
 */
import fc from 'fast-check';

/** Runs per property: short in CI, `HANGAR_FUZZ_RUNS` for a long run. */
export function fuzzRuns(ciDefault: number): number {
  const runs = Number(process.env.HANGAR_FUZZ_RUNS);
  return Number.isInteger(runs) && runs > 0 ? runs : ciDefault;
}

/** The seed CI uses, so that a CI run is the same every time (new inputs are for local runs). */
export const CI_FUZZ_SEED = 20261121;

/**
 * The seed of a run, printed so that a failure can be replayed (`HANGAR_FUZZ_SEED`): fixed under
 * CI=true, so that CI passes or fails on the code, not on the draw; a new one in every local run,
 * which keeps exploring (a failure found that way becomes a named test).
 */
export function fuzzSeed(): number {
  const seed = Number(process.env.HANGAR_FUZZ_SEED);
  if (process.env.HANGAR_FUZZ_SEED && Number.isInteger(seed)) return seed;
  return process.env.CI === 'true' ? CI_FUZZ_SEED : Date.now() ^ (process.pid << 8);
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  $ref?: string;
}

/** Strings that have broken parsers, validators and databases before. */
const NASTY = [
  '', ' ', '\u0000', 'null', 'undefined', 'NaN', '-0', '1e309', '0x10', '9'.repeat(40), '-1',
  '\ud800', '\udfff', '\u202e\u200b\ufeff', '𝕳𝖆𝖓𝖌𝖆𝖗', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇', '../../etc/passwd', '..\\..\\boot.ini', '/etc/passwd',
  '%00', '%E0%A4%A', '${jndi:ldap://x}', "'; DROP TABLE users; --", '<script>alert(1)</script>', '__proto__', 'constructor',
];

/** Short hostile strings: known troublemakers, any grapheme, any code point (lone surrogates included). */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Odd strings, and now and then a huge one (past field, URL and header limits). */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: oddString },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 300_000 }).map((n) => 'x'.repeat(n)) },
);

/** Percent-encodes any string for a URL, lone surrogates too (as the UTF-8 bytes of U+FFFD, as browsers do). */
export function encodeAny(text: string): string {
  return encodeURIComponent(text.toWellFormed());
}

/** A JSON value nested `depth` levels deep, as text (so that it need not exist as an object here). */
export const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
  .map(([depth, objects]) => (objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth)));

function resolve(schema: JsonSchema, root: { components?: { schemas?: Record<string, JsonSchema> } }): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return root.components?.schemas?.[name] ?? {};
}

/** Values of the shape `schema` describes (not always valid: bounds and patterns are ignored on purpose). */
export function shaped(schema: JsonSchema, root: object = {}): fc.Arbitrary<unknown> {
  const s = resolve(schema, root);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  const alternatives = s.anyOf ?? s.oneOf ?? s.allOf;
  if (alternatives) return fc.oneof(...alternatives.map((a) => shaped(a, root)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return fc.string({ maxLength: Math.min(s.maxLength ?? 40, 40) });
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -10, -(2 ** 31)), max: Math.min(s.maximum ?? 1_000, 2 ** 31) });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(shaped(s.items ?? {}, root), { maxLength: 5 });
    case 'object': {
      const properties = Object.fromEntries(Object.entries(s.properties ?? {}).map(([key, value]) => [key, hostile(value, root)]));
      return fc.record(properties, { requiredKeys: s.required?.filter((key) => key in properties) ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** What a client may send where `schema` is expected: mostly the right shape, often not. */
export function hostile(schema: JsonSchema, root: object = {}): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: shaped(schema, root) },
    { weight: 2, arbitrary: nastyString },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(2 ** 53 + 1, -(2 ** 63), 1e308)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'toString', 'a'), fc.jsonValue({ maxDepth: 2 })) },
  );
}

/** A value as it travels in a URL or a form: strings as they are, the rest as JSON text. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}
