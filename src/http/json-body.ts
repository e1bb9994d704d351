import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../lib/errors.ts';
import { depthExceededAt, MAX_JSON_DEPTH } from '../lib/json-depth.ts';

/**
 * JSON bodies as Fastify parses them (prototype and constructor poisoning refused), except that:
 *
 * - an empty body is no body. Many clients send `Content-Type: application/json` on every request,
 *   with nothing after it on a POST that needs nothing (a bare heartbeat, a pure repost): that is the
 *   same request as one without a body. A route that needs a body still says so through its schema.
 * - a body nesting deeper than MAX_JSON_DEPTH is refused before it is parsed: validation, canonical
 *   JSON, serialization and the database drivers all recurse once per level, and a few thousand
 *   levels (10 KB of brackets) would overflow the stack of whichever touched it first.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
}

export type JsonBodyParser = (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void) => void;

/** The parser every JSON route uses, for a route that screens its body first and falls back to it. */
export function jsonBodyParser(app: FastifyInstance): JsonBodyParser {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    const text = body as string;
    if (text === '') {
      done(null, undefined);
      return;
    }
    const tooDeep = depthExceededAt(text);
    if (tooDeep >= 0) {
      done(badRequest(`Body nests deeper than ${MAX_JSON_DEPTH} levels (at position ${tooDeep})`), undefined);
      return;
    }
    void parseJson(request, text, done);
  };
}
