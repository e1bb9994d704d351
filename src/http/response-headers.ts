import type { FastifyInstance } from 'fastify';

const headers: [string, string][] = [
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'no-referrer'],
  ['cross-origin-resource-policy', 'same-origin'],
];
const contentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'";

/**
 * The API serves JSON only; these headers make browsers treat it that way. The same hook tells
 * keep-alive clients to close once shutdown began: a connection whose request finishes after
 * close() started would otherwise hold the process open until its idle timeout.
 */
export function installResponseHeaders(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // A callback-style hook: it runs on every response, and an async one costs a promise and a microtask turn.
  app.addHook('onSend', (request, reply, payload, done) => {
    for (const [name, value] of headers) reply.header(name, value);
    reply.header('x-request-id', request.id);
    // The web app's pages set a policy of their own.
    if (!request.url.startsWith('/docs') && !reply.hasHeader('content-security-policy')) reply.header('content-security-policy', contentSecurityPolicy);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
