import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, RateLimitedError, type ErrorCode, type ErrorDetail } from '../lib/errors.ts';
import { isDatabaseUnavailable, isUniqueViolation } from '../db/errors.ts';
import type { PageFallback } from './web-app.ts';

interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

const codeByStatus: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  422: 'UNPROCESSABLE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
  503: 'UNAVAILABLE',
};

/** Enough to fix any real request at once; a body of thousands of bad items does not make a thousand-line answer. */
const MAX_VALIDATION_DETAILS = 50;

function validationDetails(context: string | undefined, issues: ValidationIssue[]): ErrorDetail[] {
  return issues.slice(0, MAX_VALIDATION_DETAILS).map((issue) => {
    let path = `/${context ?? 'body'}${issue.instancePath}`;
    if (issue.keyword === 'additionalProperties') path += `/${String(issue.params.additionalProperty)}`;
    if (issue.keyword === 'required') path += `/${String(issue.params.missingProperty)}`;
    return { path, message: issue.message ?? 'is invalid' };
  });
}

/** Turns whatever a handler or Fastify throws into the catalogue's JSON error; never leaks a stack or SQL. */
export function toAppError(error: FastifyError | Error): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[] };
  if (fastifyError.validation) {
    const details = validationDetails(fastifyError.validationContext, fastifyError.validation);
    const first = details[0];
    const more = fastifyError.validation.length - 1;
    const message = first ? `${first.path} ${first.message}${more > 0 ? ` (and ${more} more: see details)` : ''}` : 'Invalid request';
    return new AppError('BAD_REQUEST', message, details);
  }
  if (isUniqueViolation(error)) return new AppError('CONFLICT', 'That resource already exists');
  if (isDatabaseUnavailable(error)) return new AppError('UNAVAILABLE', 'The database is unreachable; try again shortly');
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('BAD_REQUEST', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('BAD_REQUEST', 'Body is not valid JSON');
    case 'FST_ERR_BAD_URL':
      return new AppError('BAD_REQUEST', 'The URL is not valid (bad percent-encoding)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('URI_TOO_LONG', 'A path segment is too long (at most 100 characters)');
  }
  const status = fastifyError.statusCode;
  if (error instanceof SyntaxError && status === 400) return new AppError('BAD_REQUEST', 'Body is not valid JSON');
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError(codeByStatus[status] ?? 'BAD_REQUEST', fastifyError.message || 'Bad request');
  }
  return new AppError('INTERNAL', 'Internal error');
}

/** ARD's error classifications by HTTP status (google.rpc style codes, as the ARD API names them). */
const ardErrorCodes: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  413: 'INVALID_ARGUMENT',
  414: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  503: 'UNAVAILABLE',
};

/**
 * The A2A endpoint's refusals before a JSON-RPC request is read (a credential, the body itself) are
 * also JSON-RPC error responses, so an A2A client reads them as typed errors. A2A names no code for
 * authentication: 401 and 403 use JSON-RPC's implementation-defined -32000 with a google.rpc
 * ErrorInfo reason, as A2A's own errors carry one (docs/a2a.md).
 */
function a2aError(error: AppError): Record<string, unknown> {
  const [code, reason] =
    error.status === 401
      ? [-32000, 'UNAUTHENTICATED']
      : error.status === 403
        ? [-32000, 'PERMISSION_DENIED']
        : error.status === 429
          ? [-32000, 'RESOURCE_EXHAUSTED']
          : error.status === 503
            ? [-32000, 'UNAVAILABLE']
            : error.status === 404 || error.status === 405
              ? [-32601, 'METHOD_NOT_FOUND']
              : error.message === 'Body is not valid JSON'
                ? [-32700, 'PARSE_ERROR']
                : [-32600, 'INVALID_REQUEST'];
  const data = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'agentry' }];
  return { jsonrpc: '2.0', id: null, error: { code, message: error.message, data } };
}

/**
 * Standards served under a path prefix of their own answer errors with their clients' error field
 * beside `code` and `message` (docs/interop.md).
 */
const standardErrorFields: { matches(url: string): boolean; fields(error: AppError): Record<string, unknown> }[] = [
  { matches: (url) => url.startsWith('/v0.1/'), fields: (error) => ({ error: error.message }) },
  { matches: (url) => url.startsWith('/ard/'), fields: (error) => ({ errorCode: ardErrorCodes[error.status] ?? 'INTERNAL' }) },
  { matches: (url) => /^\/a2a(\/|\?|$)/.test(url), fields: a2aError },
];

function errorBody(appError: AppError, url: string): Record<string, unknown> {
  const standard = standardErrorFields.find((s) => s.matches(url));
  return { ...appError.extra, ...standard?.fields(appError), code: appError.code, message: appError.message };
}

/** How long, and how many more bytes, the rest of a body refused for its size is read and dropped. */
const DRAIN_MS = 10_000;
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;

/**
 * A body refused for its size is refused before it is read to its end. Fastify then asks for the
 * connection to close, and Node closes the socket at once with the client's bytes unread: the kernel
 * answers the bytes still coming with a reset, and a client that sends its whole body before reading
 * (most do) loses the 413 with the connection. Instead the rest of the body is read and dropped, and
 * the connection stays usable, as after any other early answer; a client that keeps sending past
 * DRAIN_MS or DRAIN_MAX_BYTES is cut off, having had that long to read its answer.
 */
function drainRefusedBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed || typeof raw.resume !== 'function') return;
  reply.removeHeader('connection');
  let dropped = 0;
  const cutOff = () => raw.socket?.destroy();
  const timer = setTimeout(cutOff, DRAIN_MS);
  timer.unref();
  const stop = () => clearTimeout(timer);
  raw.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_MAX_BYTES) cutOff();
  });
  raw.once('end', stop);
  raw.once('close', stop);
  raw.resume();
}

/** The one place an error becomes a response. */
export function sendError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error);
  if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  const body = errorBody(appError, request.url);
  if (appError.details) body.details = appError.details;
  else delete body.details;
  if (appError instanceof RateLimitedError) reply.header('retry-after', String(appError.retryAfterSeconds));
  // HTTP requires a challenge with every 401; protocol clients (MCP's among them) read it to tell a
  // bad or missing bearer token from an OAuth flow to start (RFC 6750).
  if (appError.status === 401) reply.header('www-authenticate', request.headers.authorization ? 'Bearer error="invalid_token"' : 'Bearer');
  else if (appError.status === 503) reply.header('retry-after', '1');
  if (appError.status === 413) drainRefusedBody(request, reply);
  return reply.status(appError.status).type('application/json; charset=utf-8').send(body);
}

/** `pageFallback` answers the web app's pages, which have no route of their own; null leaves the JSON 404. */
export function installErrorHandlers(app: FastifyInstance, pageFallback: () => PageFallback | null = () => null): void {
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    const page = pageFallback()?.(request, reply);
    if (page) return page;
    return reply.status(404).send(errorBody(new AppError('NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`), request.url));
  });
}

/**
 * Requests Node's HTTP parser refuses never reach Fastify's routing or error handler: headers over
 * the size limit (431), a request that took too long to arrive (408), bytes that are not HTTP (400).
 * They are answered here on the raw socket, in the same JSON shape as every other error, and the
 * connection is closed (the parser cannot find where the next request would begin).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('HEADERS_TOO_LARGE', 'Request headers are too large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('REQUEST_TIMEOUT', 'The request did not arrive in time')
        : new AppError('BAD_REQUEST', 'The request is not valid HTTP');
  const body = JSON.stringify({ code: appError.code, message: appError.message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
