/**
 * A small HTTP client for API tests. Every JSON answer is also checked against the response schema
 * the served OpenAPI document gives for that operation and status, so the documentation cannot drift
 * from what the server does.
 */
import { Ajv, type ValidateFunction } from 'ajv';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON body (an object or any value) */
  json?: unknown;
  /** form body (application/x-www-form-urlencoded) */
  form?: Record<string, string>;
  /** a raw body with its content type */
  raw?: { body: string | Buffer; contentType?: string };
  headers?: Record<string, string>;
  shape?: 'base' | 'extended';
  /** how to send the token: header (default), query, or body field */
  tokenIn?: 'header' | 'query' | 'body';
  /** skip the OpenAPI response check (for answers that are not the API's, e.g. HTML) */
  unchecked?: boolean;
}

type Spec = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };

const specs = new Map<string, Promise<Spec>>();
const validators = new Map<string, ValidateFunction | null>();
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });

async function specOf(baseUrl: string): Promise<Spec> {
  let spec = specs.get(baseUrl);
  if (!spec) {
    spec = fetch(`${baseUrl}/api/openapi.json`).then((r) => r.json() as Promise<Spec>);
    specs.set(baseUrl, spec);
  }
  return spec;
}

function templateMatches(template: string, path: string): boolean {
  const pattern = '^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+') + '$';
  return new RegExp(pattern).test(path);
}

/** The response schema of the operation serving (method, path) for a status, or null if undocumented. */
async function responseValidator(baseUrl: string, method: string, path: string, status: number): Promise<ValidateFunction | null | 'no-operation'> {
  const spec = await specOf(baseUrl);
  // static segments win over parameters, as in the router
  const templates = Object.keys(spec.paths)
    .filter((t) => spec.paths[t]![method.toLowerCase()] && templateMatches(t, path))
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  const template = templates[0];
  if (!template) return 'no-operation';
  const key = `${baseUrl} ${method} ${template} ${status}`;
  if (!validators.has(key)) {
    const schema = spec.paths[template]![method.toLowerCase()]!.responses?.[String(status)]?.content?.['application/json']?.schema;
    validators.set(key, schema ? ajv.compile(schema as object) : null);
  }
  return validators.get(key)!;
}

export class ContractError extends Error {}

export class ApiClient {
  readonly baseUrl: string;
  readonly token: string | null;

  constructor(baseUrl: string, token: string | null) {
    this.baseUrl = baseUrl;
    this.token = token;
  }

  withToken(token: string | null): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...options.headers };
    if (options.shape) headers['x-api-shape'] = options.shape;
    let body: string | Buffer | undefined;
    const tokenIn = options.tokenIn ?? 'header';
    if (this.token !== null && tokenIn === 'header') headers.authorization = `Bearer ${this.token}`;
    if (this.token !== null && tokenIn === 'query') url.searchParams.set('token', this.token);
    if (options.json !== undefined) {
      const value = this.token !== null && tokenIn === 'body' ? { ...(options.json as object), token: this.token } : options.json;
      body = JSON.stringify(value);
      headers['content-type'] = 'application/json';
    } else if (options.form) {
      const form = new URLSearchParams(options.form);
      if (this.token !== null && tokenIn === 'body') form.set('token', this.token);
      body = form.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (options.raw) {
      body = options.raw.body;
      if (options.raw.contentType) headers['content-type'] = options.raw.contentType;
    } else if (this.token !== null && tokenIn === 'body') {
      body = JSON.stringify({ token: this.token });
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(url, { method, headers, body: Buffer.isBuffer(body) ? new Uint8Array(body) : body });
    const text = await response.text();
    const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
    const parsed = isJson && text !== '' ? JSON.parse(text) : text;

    if (!options.unchecked && isJson && url.pathname.startsWith('/api/')) {
      const validate = await responseValidator(this.baseUrl, method, url.pathname, response.status);
      if (validate === null) throw new ContractError(`${method} ${url.pathname} answered ${response.status}, which its OpenAPI operation does not document: ${text.slice(0, 300)}`);
      if (validate !== 'no-operation' && !validate(parsed)) {
        throw new ContractError(`${method} ${url.pathname} ${response.status} does not match its OpenAPI schema: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`);
      }
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, ...(json !== undefined && { json }) });
  }
  put<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, ...(json !== undefined && { json }) });
  }
  patch<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, ...(json !== undefined && { json }) });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
