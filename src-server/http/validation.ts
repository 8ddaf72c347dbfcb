/**
 * Request validation: route schemas (TypeBox, i.e. JSON Schema) compiled by ajv, and ajv's errors
 * turned into the 422 body of R3: `{"error":"Unprocessable entity","entry":{"name":["can't be blank"]}}`.
 *
 * Coercion depends on where a value comes from. Query strings, path parameters and form bodies only
 * carry text, so "2" may stand for 2 and "true" for true there. A JSON body says what type it means:
 * `{"name": 42}` is a type error, not the name "42".
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { Entry } from '../domain/errors.ts';

// ajv-formats is CommonJS with a default export
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Set on bodies parsed from `application/x-www-form-urlencoded` (see content-types.ts). */
export const FORM_BODY = Symbol('hangar.formBody');

const common: Options = {
  allErrors: false, // one error per request: cheaper, and safe against inputs built to produce many
  useDefaults: true,
  removeAdditional: false,
  verbose: true, // keeps the offending value on each error, to tell "blank" from "invalid"
  strict: false,
  unicodeRegExp: true,
};

function makeAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ ...common, coerceTypes });
  addFormats(ajv, ['email', 'uri', 'date-time']);
  return ajv;
}

const textAjv = makeAjv('array');
const jsonAjv = makeAjv(false);
const formAjv = makeAjv(true);

/** Integers in text are written the usual way: ajv alone would read "0x2", " 2" or "2.0" as 2. */
const CANONICAL_INTEGER = /^-?(0|[1-9]\d*)$/;

function integerProperties(schema: object): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(properties).filter((key) => properties[key]!.type === 'integer');
}

/** Validation of text-only parts (path, query, headers): coerced by ajv, integers canonical first. */
function compileText(schema: object): ValidateFunction {
  const validate = textAjv.compile(schema);
  const integers = integerProperties(schema);
  if (integers.length === 0) return validate;
  const wrapped = (data: Record<string, unknown> | undefined) => {
    for (const key of integers) {
      const raw = data?.[key];
      if (typeof raw === 'string' && !CANONICAL_INTEGER.test(raw)) {
        wrapped.errors = [{ instancePath: `/${key}`, schemaPath: `#/properties/${key}/type`, keyword: 'type', params: { type: 'integer' }, data: raw }];
        return false;
      }
    }
    const ok = validate(data);
    wrapped.errors = validate.errors;
    return ok;
  };
  wrapped.errors = null as ErrorObject[] | null | undefined;
  return wrapped as unknown as ValidateFunction;
}

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  if (httpPart !== 'body') return compileText(schema);
  const strict = jsonAjv.compile(schema);
  const loose = formAjv.compile(schema);
  const validate = (data: unknown) => {
    const fn = data !== null && typeof data === 'object' && FORM_BODY in data ? loose : strict;
    const ok = fn(data);
    (validate as { errors?: unknown }).errors = fn.errors;
    return ok;
  };
  return validate as unknown as ValidateFunction;
};

const typeNames: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** Blank as a person sees it: nothing but spaces and zero-width characters. */
function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.replace(/[\s\u200B-\u200D\u2060\uFEFF]/g, '') === '');
}

function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return "can't be blank";
    case 'minLength':
      return isBlank(error.data) ? "can't be blank" : `is too short (minimum is ${params.limit} characters)`;
    case 'maxLength':
      return `is too long (maximum is ${params.limit} characters)`;
    case 'pattern':
      return isBlank(error.data) ? "can't be blank" : 'is invalid';
    case 'format':
      return 'is invalid';
    case 'enum':
    case 'const':
      return 'is not included in the list';
    case 'type': {
      const types = String(params.type).split(',');
      return `must be ${types.map((t) => typeNames[t] ?? t).join(' or ')}`;
    }
    case 'minimum':
      return `must be greater than or equal to ${params.limit}`;
    case 'maximum':
      return `must be less than or equal to ${params.limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${params.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${params.limit}`;
    case 'maxItems':
      return `is too long (maximum is ${params.limit} items)`;
    case 'minItems':
      return `is too short (minimum is ${params.limit} items)`;
    default:
      return 'is invalid';
  }
}

function fieldOf(error: ErrorObject, context: string): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String((error.params as { missingProperty: string }).missingProperty));
  return path.length > 0 ? path.join('.') : context;
}

/** ajv errors -> `entry`. Union branches ("anyOf") report through their members; one message per field. */
export function entryOf(errors: ErrorObject[], context: string): Entry {
  const entry: Entry = {};
  const specific = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  for (const error of specific.length > 0 ? specific : errors) {
    const field = fieldOf(error, context);
    if (!entry[field]) entry[field] = [messageOf(error)];
  }
  return entry;
}

/** Validates text fields read outside Fastify's body parsing (multipart forms) like a form body. */
export function validateFormFields(schema: object, fields: Record<string, string>): Entry | null {
  let validate = formValidators.get(schema);
  if (!validate) {
    validate = formAjv.compile(schema);
    formValidators.set(schema, validate);
  }
  return validate(fields) ? null : entryOf(validate.errors ?? [], 'body');
}
const formValidators = new WeakMap<object, ValidateFunction>();
