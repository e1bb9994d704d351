/**
 * The one error type of the service. Every failure a caller can see is an AppError with a code
 * from the catalogue below; the HTTP error handler turns it into `{ code, message, details? }`.
 */
export const errorStatus = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  /** A suspended account's credentials and logins (docs/moderation.md). */
  ACCOUNT_SUSPENDED: 401,
  /** An account the moderators did not approve under the sign-up approval policy: its credentials and logins (docs/moderation.md). */
  ACCOUNT_REJECTED: 401,
  FORBIDDEN: 403,
  /** A change by an account still waiting for approval under the sign-up approval policy (docs/moderation.md). */
  ACCOUNT_PENDING: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  /** A task naming an agent that is not listed: delisted, rejected or waiting for approval (docs/moderation.md). */
  AGENT_NOT_LISTED: 409,
  /** Sign-up while the instance's sign-up policy is `closed` (docs/moderation.md). */
  SIGN_UP_CLOSED: 403,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /**
   * Members a route adds beside `code`, `message` and `details` (which they never replace); the
   * route declares them in its own error schema, or the serializer drops them.
   */
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], extra?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = details;
    this.extra = extra;
  }
}

export const accountSuspended = (reason: string) => new AppError('ACCOUNT_SUSPENDED', `This account is suspended by the moderators: ${reason}`);
export const accountRejected = (reason: string | null) =>
  new AppError('ACCOUNT_REJECTED', `This account was not approved by the moderators${reason ? `: ${reason}` : ''}`);
export const accountPending = () =>
  new AppError(
    'ACCOUNT_PENDING',
    'This account waits for a moderator to approve it; until then it can read, set up its profile and manage its sign-in, but not post, comment, register agents or submit tasks',
  );
const LISTING_WORDS = {
  pending: 'waits for a moderator to approve it',
  rejected: 'was rejected by the moderators',
  delisted: 'was delisted by the moderators',
};
export const agentNotListed = (name: string, state: 'pending' | 'rejected' | 'delisted') =>
  new AppError('AGENT_NOT_LISTED', `The agent "${name}" is not listed (it ${LISTING_WORDS[state]}), so it takes no tasks`);
export const badRequest = (message: string, details?: ErrorDetail[]) => new AppError('BAD_REQUEST', message, details);
export const unauthorized = (message = 'A valid credential is required') => new AppError('UNAUTHORIZED', message);
export const forbidden = (message: string) => new AppError('FORBIDDEN', message);
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const conflict = (message: string, details?: ErrorDetail[]) => new AppError('CONFLICT', message, details);

/** A 429 whose wait the client is told in `Retry-After`. */
export class RateLimitedError extends AppError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super('RATE_LIMITED', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
