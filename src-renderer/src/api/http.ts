/**
 * JSON requests to the API over a Connection: the extended shape, the connection's credentials, and
 * errors turned into ApiError. A 401 in the middle of a session means it ended (signed out elsewhere,
 * token revoked, user locked): the `onSessionEnded` callback sends the console back to sign-in.
 */
import type { Connection } from './connection.ts';
import { SHAPE_HEADERS } from './connection.ts';
import { errorFromBody, networkError } from './errors.ts';

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  json?: unknown;
  query?: Query;
}

export interface Answer<T> {
  body: T;
  headers: Headers;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export class Http {
  readonly connection: Connection;
  private readonly onSessionEnded: () => void;

  constructor(connection: Connection, onSessionEnded: () => void) {
    this.connection = connection;
    this.onSessionEnded = onSessionEnded;
  }

  /** An absolute URL on the server, for links (downloads) the browser follows itself. */
  url(path: string, query?: Query): string {
    return `${this.connection.origin}${withQuery(path, query)}`;
  }

  /**
   * A URL the server handed out (built on its public LAN address) as this console reaches the
   * server, for what the console itself loads (icons): the LAN address may not be reachable, or
   * allowed by the page's security policy, from here.
   */
  local(url: string): string {
    const { pathname, search } = new URL(url);
    return `${this.connection.origin}${pathname}${search}`;
  }

  async send<T>(method: string, path: string, { json, query }: RequestOptions = {}): Promise<Answer<T>> {
    let response: Response;
    try {
      response = await fetch(this.url(path, query), {
        method,
        credentials: this.connection.credentials,
        headers: {
          ...SHAPE_HEADERS,
          Accept: 'application/json',
          ...this.connection.authHeaders(method),
          ...(json !== undefined && { 'Content-Type': 'application/json' }),
        },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
    } catch (error) {
      throw networkError(error);
    }
    const text = await response.text();
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = { error: text.slice(0, 200) };
      }
    }
    if (!response.ok) {
      if (response.status === 401) this.onSessionEnded();
      throw errorFromBody(response.status, body, response.headers.get('Retry-After'));
    }
    return { body: body as T, headers: response.headers };
  }

  async get<T>(path: string, query?: Query): Promise<T> {
    return (await this.send<T>('GET', path, { query })).body;
  }

  async post<T>(path: string, json: unknown = {}, query?: Query): Promise<T> {
    return (await this.send<T>('POST', path, { json, query })).body;
  }

  async patch<T>(path: string, json: unknown): Promise<T> {
    return (await this.send<T>('PATCH', path, { json })).body;
  }

  async delete(path: string, query?: Query): Promise<void> {
    await this.send('DELETE', path, { query });
  }
}
