/**
 * Request bodies: JSON (Fastify's own parser) and `application/x-www-form-urlencoded`, which
 * Zealot's clients send (fastlane's device sync, curl `-d` scripts). Form bodies are marked so that
 * validation coerces their text values ("true", "3") the way it does for query strings.
 * Multipart is added by the upload routes.
 */
import type { FastifyInstance } from 'fastify';
import { FORM_BODY } from './validation.ts';

export function installContentTypes(app: FastifyInstance): void {
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
