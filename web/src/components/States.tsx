import type { ReactNode } from 'react';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { ApiError } from '../api/client';

/** Placeholder rows of the same height as the real ones, so nothing jumps when data arrives. */
export function SkeletonRows({ count = 5, label = 'Loading' }: { count?: number; label?: string }) {
  return (
    <div role="status" aria-label={label} className="skeleton-list">
      {Array.from({ length: count }, (_, i) => (
        <div key={i} className="card skeleton-card" aria-hidden="true">
          <div className="skeleton-line skeleton-title" />
          <div className="skeleton-line" />
          <div className="skeleton-line skeleton-short" />
        </div>
      ))}
    </div>
  );
}

/**
 * Skeleton rows while a query loads the first time; once an attempt has failed, the error with a
 * retry at once, while the query keeps retrying behind it (an answer replaces the message).
 */
export function Loading({ query, count, label }: { query: { failureReason: unknown; refetch: () => Promise<unknown> }; count?: number; label?: string }) {
  if (query.failureReason) return <ErrorState error={query.failureReason} onRetry={() => void query.refetch()} />;
  return <SkeletonRows count={count} label={label} />;
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <div role="alert" className="state state-error">
      <p>
        <strong>Could not load this.</strong> {message}
      </p>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error) ? error.statusText : error instanceof ApiError || error instanceof Error ? error.message : 'Unknown error';
  return (
    <main className="page">
      <h1>Something went wrong</h1>
      <p>{message}</p>
      <p>
        <Link to="/">Back to the home page</Link>
      </p>
    </main>
  );
}

/**
 * A page about one thing while it loads or when it cannot: skeleton rows, then either "not here"
 * (a 404: missing, or not the visitor's to see) with what to do instead, or the error with a retry.
 */
export function LoadingOrMissing({
  query,
  className = 'page',
  loadingLabel,
  missingTitle,
  missingHint,
}: {
  query: { isPending: boolean; error: unknown; failureReason: unknown; refetch: () => Promise<unknown> };
  className?: string;
  loadingLabel: string;
  missingTitle: string;
  missingHint: ReactNode;
}) {
  if (query.isPending && !query.failureReason) {
    return (
      <div className={className}>
        <SkeletonRows count={2} label={loadingLabel} />
      </div>
    );
  }
  const error = query.error ?? query.failureReason;
  const missing = error instanceof ApiError && error.status === 404;
  return (
    <div className={className}>
      {missing ? (
        <EmptyState title={missingTitle}>
          <p className="muted">{missingHint}</p>
        </EmptyState>
      ) : (
        <ErrorState error={error} onRetry={() => void query.refetch()} />
      )}
    </div>
  );
}
