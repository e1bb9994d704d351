import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, RateLimitedError, type ErrorCode, type ErrorDetail } from '../lib/errors.ts';
import { isUniqueViolation } from '../db/errors.ts';
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

function validationDetails(context: string | undefined, issues: ValidationIssue[]): ErrorDetail[] {
  return issues.map((issue) => {
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
    return new AppError('BAD_REQUEST', first ? `${first.path} ${first.message}` : 'Invalid request', details);
  }
  if (isUniqueViolation(error)) return new AppError('CONFLICT', 'That resource already exists');
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

/** The one place an error becomes a response. */
export function sendError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error);
  if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  const body: Record<string, unknown> = { ...appError.extra, code: appError.code, message: appError.message };
  if (appError.details) body.details = appError.details;
  else delete body.details;
  if (appError instanceof RateLimitedError) reply.header('retry-after', String(appError.retryAfterSeconds));
  return reply.status(appError.status).type('application/json; charset=utf-8').send(body);
}

/** `pageFallback` answers the web app's pages, which have no route of their own; null leaves the JSON 404. */
export function installErrorHandlers(app: FastifyInstance, pageFallback: () => PageFallback | null = () => null): void {
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    const page = pageFallback()?.(request, reply);
    if (page) return page;
    return reply.status(404).send({ code: 'NOT_FOUND', message: `No route for ${request.method} ${request.url.split('?')[0]}` });
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
