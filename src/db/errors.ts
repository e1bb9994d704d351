/**
 * The one place that knows how each engine reports a unique-constraint violation, so a race that
 * slips past a service's own checks still answers 409 instead of 500.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * The database cannot be reached or is going away (refused or broken connections, a server shutting
 * down or starting up, no free connection within the timeout): the request may succeed if retried.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // Connection exceptions (08xxx) and operator intervention (57P01-57P03: shutdown, crash, starting up).
    if (/^08...$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03') return true;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE') return true;
  }
  return (
    typeof message === 'string' &&
    /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/.test(
      message,
    )
  );
}
