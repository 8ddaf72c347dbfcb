/**
 * Request bodies: JSON and `application/x-www-form-urlencoded`, which Zealot's clients send
 * (fastlane's device sync, curl `-d` scripts). Multipart is added by the upload routes. Anything else
 * (text/plain included) is 415.
 *
 * - JSON goes through Fastify's parser (prototype-poisoning safe), then must hold only well-formed
 *   Unicode: a lone surrogate ("\uD800") would otherwise be stored as U+FFFD, silently changed.
 * - Form bodies are marked so that validation coerces their text values ("true", "3") the way it
 *   does for query strings.
 */
import type { FastifyInstance } from 'fastify';
import { FORM_BODY } from './validation.ts';

class MalformedBodyError extends Error {
  readonly statusCode = 400;
  readonly code = 'HANGAR_MALFORMED_UNICODE';
}

function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => key.isWellFormed() && wellFormed(item));
  }
  return true;
}

export function installContentTypes(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');

  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      if (!wellFormed(value)) return done(new MalformedBodyError('Malformed JSON: strings must be valid Unicode'), undefined);
      done(null, value);
    });
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const parsed: Record<string, string | string[]> = {};
    for (const [key, value] of new URLSearchParams(body as string)) {
      const existing = parsed[key];
      if (existing === undefined) parsed[key] = value;
      else parsed[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
    Object.defineProperty(parsed, FORM_BODY, { value: true, enumerable: false });
    done(null, parsed);
  });
}
