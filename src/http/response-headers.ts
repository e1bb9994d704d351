import type { FastifyInstance } from 'fastify';

const headers: [string, string][] = [
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'no-referrer'],
  ['cross-origin-resource-policy', 'same-origin'],
];
const contentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'";

/**
 * The same headers on a response a route writes itself (a hijacked reply, which skips onSend): the
 * MCP endpoint's transport writes its own answers.
 */
export function setSecurityHeaders(raw: { setHeader(name: string, value: string): unknown }, requestId: string): void {
  for (const [name, value] of headers) raw.setHeader(name, value);
  raw.setHeader('x-request-id', requestId);
  raw.setHeader('content-security-policy', contentSecurityPolicy);
}

/**
 * The API serves JSON only; these headers make browsers treat it that way. The same hook tells
 * keep-alive clients to close once the node is shutting down (`shuttingDown()`): only the client can
 * close a kept-alive connection without racing a request it is sending on it, and a connection left
 * open holds the stopping node until the client's idle timeout.
 */
export function installResponseHeaders(app: FastifyInstance, shuttingDown: () => boolean): void {
  // A callback-style hook: it runs on every response, and an async one costs a promise and a microtask turn.
  app.addHook('onSend', (request, reply, payload, done) => {
    for (const [name, value] of headers) reply.header(name, value);
    reply.header('x-request-id', request.id);
    // The web app's pages set a policy of their own.
    if (!request.url.startsWith('/docs') && !reply.hasHeader('content-security-policy')) reply.header('content-security-policy', contentSecurityPolicy);
    if (shuttingDown()) reply.header('connection', 'close');
    done(null, payload);
  });
}
