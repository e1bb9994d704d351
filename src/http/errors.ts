import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, type ErrorDetail } from '../lib/errors.ts';
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
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE',
  429: 'RATE_LIMITED',
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
      return new AppError('BAD_REQUEST', 'A path segment is too long (at most 100 characters)');
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
  const body: { code: string; message: string; details?: ErrorDetail[] } = { code: appError.code, message: appError.message };
  if (appError.details) body.details = appError.details;
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
