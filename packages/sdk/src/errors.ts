/** An error answer from the service: its HTTP status and the `{code, message, details?}` body. */
export class AgentryError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: { path: string; message: string }[] | undefined;
  /** The rest of the error body (for example `found` beside an extraction's `details`). */
  readonly body: Record<string, unknown>;

  constructor(status: number, body: unknown) {
    const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const message = typeof record.message === 'string' ? record.message : `the service answered HTTP ${status}`;
    super(message);
    this.name = 'AgentryError';
    this.status = status;
    this.code = typeof record.code === 'string' ? record.code : status >= 500 ? 'INTERNAL' : 'HTTP_ERROR';
    this.details = Array.isArray(record.details) ? (record.details as { path: string; message: string }[]) : undefined;
    this.body = record;
  }
}

/** The service could not be reached (refused, reset, DNS, timeout): nothing was answered. */
export class AgentryNetworkError extends Error {
  readonly url: string;
  constructor(url: string, cause: unknown) {
    super(`could not reach ${url}: ${cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause)}`, { cause });
    this.name = 'AgentryNetworkError';
    this.url = url;
  }
}
