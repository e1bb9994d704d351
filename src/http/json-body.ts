import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as Fastify parses them (prototype and constructor poisoning refused), except that an
 * empty body is no body. Many clients send `Content-Type: application/json` on every request, with
 * nothing after it on a POST that needs nothing (a bare heartbeat, a pure repost): that is the same
 * request as one without a body. A route that needs a body still says so through its schema.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}
