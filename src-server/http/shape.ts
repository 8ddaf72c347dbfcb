/**
 * The shape of each response (R1): the server's `apiShape`, unless the request asks for another with
 * `X-Api-Shape: base|extended`. An unknown value is a 422, not a silent default.
 */
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from '../config/config.ts';
import { API_SHAPES, type ApiShape } from '../config/config.ts';
import { ValidationError } from '../domain/errors.ts';
import { shapeFor, type Shape } from '../serializers/shapes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    shape: Shape;
  }
}

export const SHAPE_HEADER = 'x-api-shape';

export function installShapes(app: FastifyInstance, config: ServerConfig): void {
  const fallback = shapeFor(config.apiShape, config.timezone);
  // Set for every request before anything else runs; errors are answered in the default shape.
  app.decorateRequest('shape', null as never);
  app.addHook('onRequest', (request, _reply, done) => {
    const asked = request.headers[SHAPE_HEADER];
    if (asked === undefined) {
      request.shape = fallback;
      return done();
    }
    const name = String(asked).trim().toLowerCase();
    if (!API_SHAPES.includes(name as ApiShape)) {
      request.shape = fallback;
      return done(ValidationError.field('X-Api-Shape', 'is not included in the list'));
    }
    request.shape = shapeFor(name as ApiShape, config.timezone);
    done();
  });
}
